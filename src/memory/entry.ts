// One remembered thing and how it is written: a line of a topic file, with when and in which
// session it was made in a comment at its end, so the file stays Markdown a person reads and
// edits, and agentloop reads it back exactly.

import { createHash, randomBytes } from "node:crypto";

export interface MemoryEntry {
  /** Short and stable: the memory tool and `agentloop memory forget` name an entry by it. */
  id: string;
  /** Lowercase words joined by hyphens: the topic file the entry lives in. */
  topic: string;
  /** One line. */
  text: string;
  /** When it was made, as an ISO time; "" for a line a person wrote by hand. */
  made: string;
  /** The session that made it; "" for a line a person wrote by hand. */
  session: string;
  /** Kept word for word when the memory is consolidated (a line written by hand is). */
  pinned: boolean;
}

/** The longest entry, in characters: an entry is a fact, not a document. */
export const MAX_ENTRY_LENGTH = 500;

const TOPIC = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const TAIL = /\s*<!--(.*?)-->\s*$/;

/** The topic as written in a file name, or null when it cannot be one. */
export function topicName(text: string): string | null {
  const topic = text
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-");
  return TOPIC.test(topic) && topic.length <= 40 ? topic : null;
}

/** An entry's text on one line, within MAX_ENTRY_LENGTH; empty when nothing is left. */
export function oneLine(text: string): string {
  const line = text
    .replace(/\s+/g, " ")
    .replace(/<!--|-->/g, "")
    .trim();
  return line.length > MAX_ENTRY_LENGTH ? `${line.slice(0, MAX_ENTRY_LENGTH - 1)}…` : line;
}

export function entryLine(entry: MemoryEntry): string {
  const facts = [`id:${entry.id}`];
  if (entry.made) facts.push(`made:${entry.made}`);
  if (entry.session) facts.push(`session:${entry.session}`);
  if (entry.pinned) facts.push("pinned");
  return `- ${entry.text} <!-- ${facts.join(" ")} -->`;
}

/**
 * The entries of a topic file: each line that starts with "- ". A line without agentloop's
 * comment was written by a person: it gets an id from its text and is pinned.
 */
export function parseTopicFile(topic: string, text: string): MemoryEntry[] {
  const entries: MemoryEntry[] = [];
  for (const raw of text.split("\n")) {
    if (!raw.startsWith("- ")) continue;
    const tail = TAIL.exec(raw);
    const body = oneLine(tail ? raw.slice(2, tail.index) : raw.slice(2));
    if (!body) continue;
    const facts = new Map<string, string>();
    for (const word of (tail?.[1] ?? "").trim().split(/\s+/)) {
      const colon = word.indexOf(":");
      facts.set(colon === -1 ? word : word.slice(0, colon), word.slice(colon + 1));
    }
    entries.push({
      id: facts.get("id") || `h${createHash("sha256").update(body).digest("hex").slice(0, 6)}`,
      topic,
      text: body,
      made: facts.get("made") ?? "",
      session: facts.get("session") ?? "",
      pinned: !tail || facts.has("pinned"),
    });
  }
  return entries;
}

/** How an entry is shown to a person and in the index: its id, text, and where it came from. */
export function describeEntry(
  entry: MemoryEntry,
  { width = Number.POSITIVE_INFINITY, wholeSession = false } = {},
): string {
  const text = entry.text.length > width ? `${entry.text.slice(0, width - 1)}…` : entry.text;
  const when = entry.made ? `${entry.made.slice(0, 16).replace("T", " ")} UTC` : "by hand";
  const id = entry.session && (wholeSession ? entry.session : entry.session.slice(0, 8));
  const session = id ? `, session ${id}` : "";
  return `[${entry.id}] ${text} (${when}${session}${entry.pinned ? ", pinned" : ""})`;
}

/** An id none of `taken` has. */
export function newEntryId(taken: readonly MemoryEntry[]): string {
  for (;;) {
    const id = `m${randomBytes(3).toString("hex")}`;
    if (!taken.some((entry) => entry.id === id)) return id;
  }
}

/** Now, to the second, as entries record it. */
export function timeStamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, "Z");
}

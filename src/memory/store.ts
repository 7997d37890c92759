// The memory of one project, kept in agentloop's state directory (never in the repository): a
// topic file per topic (topics/NAME.md, one entry a line) and the index MEMORY.md made from
// them, whose head goes into each new session's system prompt. Every write goes through here,
// one at a time, and every text is redacted before it reaches the disk.

import { createHash } from "node:crypto";
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { cp, mkdir, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { writeFileAtomically } from "../core/atomic-write.js";
import { mainWorkTreeRoot } from "../core/git-directory.js";
import { readOwnFile } from "../core/own-file.js";
import { stateDirectory } from "../core/state-directory.js";
import {
  describeEntry,
  entryLine,
  type MemoryEntry,
  newEntryId,
  parseTopicFile,
  timeStamp,
} from "./entry.js";

/** Index lines longer than this show their start; the whole entry is in its topic file. */
const INDEX_ENTRY_WIDTH = 200;

/**
 * `$XDG_STATE_HOME/agentloop/memory/NAME-HASH`: one directory per project. In git the project
 * is the repository (its main work tree), so every subdirectory and worktree of it shares one
 * memory, as Claude Code's does; outside git it is the directory.
 */
export function memoryDirectory(cwd: string, env: NodeJS.ProcessEnv): string {
  const here = existsSync(cwd) ? realpathSync(cwd) : cwd;
  const main = mainWorkTreeRoot(here);
  const real = main && existsSync(main) ? realpathSync(main) : here;
  const hash = createHash("sha256").update(real).digest("hex").slice(0, 12);
  const name = basename(real).replace(/[^A-Za-z0-9._-]/g, "_") || "root";
  return join(stateDirectory(env), "memory", `${name}-${hash}`);
}

/** Who is writing: the session, for the record each entry keeps. */
export interface Writer {
  session: string;
}

export interface MemoryStore {
  readonly directory: string;
  readonly indexPath: string;
  /** MEMORY.md as it is on disk, or "" when nothing was remembered yet. */
  index(): string;
  entries(): MemoryEntry[];
  topicText(topic: string): string | null;
  add(topic: string, text: string, writer: Writer): Promise<MemoryEntry>;
  /** Null when no entry has that id. */
  update(id: string, change: { text?: string; topic?: string }): Promise<MemoryEntry | null>;
  forget(id: string): Promise<MemoryEntry | null>;
  pin(id: string): Promise<MemoryEntry | null>;
  /** Replaces every entry (none: clears), the previous files kept in backup/ first. */
  replaceAll(entries: readonly MemoryEntry[]): Promise<string>;
}

export function openMemoryStore(options: {
  directory: string;
  cwd: string;
  redact: (text: string) => string;
}): MemoryStore {
  const { directory, redact } = options;
  const topics = join(directory, "topics");
  const indexPath = join(directory, "MEMORY.md");
  const topicPath = (topic: string) => join(topics, `${topic}.md`);
  /** A file of this memory, read only where it leads inside it (null when missing or not). */
  const readHere = (file: string): string | null => {
    const read = readOwnFile(file, [directory]);
    return "text" in read ? read.text : null;
  };
  // One write at a time: each reads the files the one before it wrote.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  };

  function entries(): MemoryEntry[] {
    if (!existsSync(topics)) return [];
    return readdirSync(topics)
      .filter((name) => name.endsWith(".md"))
      .sort()
      .flatMap((name) => {
        const topic = name.slice(0, -3);
        return parseTopicFile(topic, readHere(join(topics, name)) ?? "");
      });
  }

  /** Writes the topic files of `changed` topics and the index, from `all`. */
  async function save(all: readonly MemoryEntry[], changed: Iterable<string>): Promise<void> {
    await mkdir(topics, { recursive: true });
    for (const topic of new Set(changed)) {
      const mine = all.filter((entry) => entry.topic === topic);
      if (mine.length === 0) await rm(topicPath(topic), { force: true });
      else await writeFileAtomically(topicPath(topic), topicFile(topic, mine));
    }
    if (all.length === 0) await rm(indexPath, { force: true });
    else await writeFileAtomically(indexPath, indexFile(options.cwd, all));
  }

  /** Changes the entry `id` with `change`, saving its old and new topic; null when none has it. */
  function changeEntry(id: string, change: (entry: MemoryEntry) => MemoryEntry) {
    return serially(async () => {
      const all = entries();
      const index = all.findIndex((entry) => entry.id === id);
      const before = all[index];
      if (!before) return null;
      const after = change(before);
      all[index] = after;
      await save(all, [before.topic, after.topic]);
      return after;
    });
  }

  return {
    directory,
    indexPath,
    index: () => readHere(indexPath) ?? "",
    entries,
    topicText: (topic) => readHere(topicPath(topic)),
    add: (topic, text, writer) =>
      serially(async () => {
        const all = entries();
        const entry: MemoryEntry = {
          id: newEntryId(all),
          topic,
          text: redact(text),
          made: timeStamp(),
          session: writer.session,
          pinned: false,
        };
        await save([...all, entry], [topic]);
        return entry;
      }),
    update: (id, change) =>
      changeEntry(id, (entry) => ({
        ...entry,
        text: change.text === undefined ? entry.text : redact(change.text),
        topic: change.topic ?? entry.topic,
      })),
    pin: (id) => changeEntry(id, (entry) => ({ ...entry, pinned: true })),
    forget: (id) =>
      serially(async () => {
        const all = entries();
        const gone = all.find((entry) => entry.id === id);
        if (!gone) return null;
        await save(
          all.filter((entry) => entry !== gone),
          [gone.topic],
        );
        return gone;
      }),
    replaceAll: (next) =>
      serially(async () => {
        const backup = join(directory, "backup");
        await rm(backup, { recursive: true, force: true });
        await mkdir(backup, { recursive: true });
        if (existsSync(indexPath)) await cp(indexPath, join(backup, "MEMORY.md"));
        if (existsSync(topics)) await cp(topics, join(backup, "topics"), { recursive: true });
        const cleaned = next.map((entry) => ({ ...entry, text: redact(entry.text) }));
        const before = entries().map((entry) => entry.topic);
        await save(cleaned, [...before, ...cleaned.map((entry) => entry.topic)]);
        return backup;
      }),
  };
}

function topicFile(topic: string, entries: readonly MemoryEntry[]): string {
  const lines = entries.map(entryLine);
  return `# ${topic}\n\n${lines.join("\n")}\n`;
}

/** MEMORY.md: each topic's entries, one line each, under the topic file's name. */
function indexFile(cwd: string, entries: readonly MemoryEntry[]): string {
  const byTopic = new Map<string, MemoryEntry[]>();
  for (const entry of entries)
    byTopic.set(entry.topic, [...(byTopic.get(entry.topic) ?? []), entry]);
  const sections = [...byTopic].map(([topic, mine]) => {
    const lines = mine.map((entry) => `- ${describeEntry(entry, { width: INDEX_ENTRY_WIDTH })}`);
    return `## ${topic} (topics/${topic}.md)\n${lines.join("\n")}`;
  });
  return [
    `# Memory of ${cwd}`,
    "",
    "Kept by agentloop from earlier sessions here. Made from the topic files in topics/: edit those, not this file.",
    "",
    sections.join("\n\n"),
    "",
  ].join("\n");
}

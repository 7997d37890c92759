// Every session is an append-only JSONL transcript: a header line, then one line per message
// and per loop milestone. Lines are written synchronously as events happen, so each message is
// on disk before the next request is sent, and appending costs the same however long the
// session is. Images are files beside it (images/image-store.ts).

import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import type {
  BackgroundTaskEvent,
  CompactionEvent,
  HookRunEvent,
  LoopEvent,
  LoopStopReason,
  PartEvent,
  TransitionReason,
} from "../core/events.js";
import { type Message, type StopReason, textOf, type Usage } from "../core/messages.js";
import { stateDirectory } from "../core/state-directory.js";
import { loadImages, storeImages } from "../images/image-store.js";
import type { PermissionMode } from "../permissions/policy.js";
import { redactSecretShapes } from "../permissions/secret-shapes.js";

export const SESSION_FORMAT_VERSION = 1;

export interface SessionHeader {
  type: "session";
  version: number;
  id: string;
  cwd: string;
  model: string;
  provider: string;
  startedAt: string;
  /**
   * Which build wrote the file (core/build-info.ts), so the viewer can tell whether the code it
   * shows is the code that ran. Files written before it was recorded lack it; a resumed session
   * keeps the header of the build that started it.
   */
  agentloop?: { version: string; source: string | null };
}

export type SessionEntry =
  | {
      type: "message";
      at: string;
      message: Message;
      turn?: number;
      stopReason?: StopReason;
      usage?: Usage;
      durationMs?: number;
    }
  | { type: "turn_end"; at: string; turn: number; transitionReason: TransitionReason | null }
  | { type: "stop"; at: string; reason: LoopStopReason; detail: string }
  | { type: "repair"; at: string; description: string }
  /** The permission mode changed (plan mode began or ended): a resumed session goes on in it. */
  | { type: "permission_mode"; at: string; mode: PermissionMode }
  /** An `agent` call's child ended; its transcript is the file named, relative to this one's directory. */
  | {
      type: "subagent";
      at: string;
      tool_use_id: string;
      agent_type: string;
      agent_id: string;
      transcript: string;
      reason: LoopStopReason;
    }
  /** The history was compacted; the messages before it stay in the file, untouched. */
  | (CompactionEvent & { at: string })
  /** A background task started, was told to the model as ended, or was stopped (s11). */
  | (BackgroundTaskEvent & { at: string })
  /** One of the user's hooks ran (src/hooks/). */
  | (HookRunEvent & { at: string })
  /** A part's own event (src/core/part.ts). */
  | (PartEvent & { at: string });

export function sessionsDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDirectory(env), "sessions");
}

export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, "-").replace("Z", "");
  return `${stamp}-${Math.random().toString(36).slice(2, 8)}`;
}

export interface SessionWriter {
  readonly id: string;
  readonly path: string;
  recordMessage(message: Message): void;
  recordEvent(event: LoopEvent): void;
  recordRepair(description: string): void;
  recordMode(mode: PermissionMode): void;
  close(): void;
}

/** Opens a session file for appending; writes the header when the file is new. */
export function openSessionWriter(
  directory: string,
  header: SessionHeader,
  options: { resume?: boolean } = {},
): SessionWriter {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const path = join(directory, `${header.id}.jsonl`);
  const fd = openSync(path, "a+", 0o600);
  const append = (line: object) => writeSync(fd, `${JSON.stringify(line)}\n`);
  if (options.resume) endCutOffLine(fd);
  // The model may be an address with a password in it (--provider local --model https://...).
  else append({ ...header, model: redactSecretShapes(header.model) });
  const at = () => new Date().toISOString();
  const stored = (message: Message) => storeImages(message, directory, header.id);

  return {
    id: header.id,
    path,
    recordMessage: (message) => append({ type: "message", at: at(), message: stored(message) }),
    recordRepair: (description) => append({ type: "repair", at: at(), description }),
    recordMode: (mode) => append({ type: "permission_mode", at: at(), mode }),
    recordEvent(event) {
      switch (event.type) {
        case "assistant_message": {
          const { turn, message, stopReason, usage, durationMs } = event;
          append({ type: "message", at: at(), turn, message, stopReason, usage, durationMs });
          return;
        }
        case "tool_results":
        case "continuation":
          append({ type: "message", at: at(), turn: event.turn, message: stored(event.message) });
          return;
        case "turn_end":
          append({
            type: "turn_end",
            at: at(),
            turn: event.turn,
            transitionReason: event.transitionReason,
          });
          return;
        case "stop":
          append({ type: "stop", at: at(), reason: event.reason, detail: event.detail });
          return;
        case "compaction":
        case "task_started":
        case "task_notification":
        case "task_stopped":
        case "hook":
        case "part":
          append({ ...event, at: at() });
          return;
        case "subagent":
          if (event.event.type === "stop") {
            append({
              type: "subagent",
              at: at(),
              tool_use_id: event.parent_tool_use_id,
              agent_type: event.agentType,
              agent_id: event.agentId,
              transcript: relative(directory, event.transcript),
              reason: event.event.reason,
            });
          }
          return;
        case "turn_start":
        case "text_delta":
        case "retry":
        case "tool_start":
        case "tool_end":
          return;
      }
    },
    close: () => closeSync(fd),
  };
}

/** A run killed while writing leaves its last line cut off; what comes next must not join it. */
function endCutOffLine(fd: number): void {
  const size = fstatSync(fd).size;
  if (size === 0) return;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  if (last.toString() !== "\n") writeSync(fd, "\n");
}

export interface SessionProblem {
  line: number;
  reason: string;
}

export interface SessionContents {
  header: SessionHeader | null;
  entries: SessionEntry[];
  messages: Message[];
  /** Lines that could not be read, with their 1-based line numbers. */
  problems: SessionProblem[];
}

/** Reads a session file leniently: a corrupt or truncated line is reported and skipped. */
export function parseSession(text: string): SessionContents {
  const contents: SessionContents = { header: null, entries: [], messages: [], problems: [] };
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const lineNumber = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const truncated = index === lines.length - 1 && !text.endsWith("\n");
      const reason = truncated
        ? "the line is cut off (was agentloop killed while writing?)"
        : "the line is not valid JSON";
      contents.problems.push({ line: lineNumber, reason });
      continue;
    }
    const problem = shapeProblem(value, lineNumber);
    if (problem) {
      contents.problems.push({ line: lineNumber, reason: problem });
      continue;
    }
    const record = value as SessionHeader | SessionEntry;
    if (record.type === "session") contents.header = record;
    else {
      if (record.type === "message") record.message = withReadableResults(record.message);
      contents.entries.push(record);
      if (record.type === "message") contents.messages.push(record.message);
    }
  }
  return contents;
}

function shapeProblem(value: unknown, lineNumber: number): string | null {
  if (typeof value !== "object" || value === null) return "the line is not a JSON object";
  const record = value as {
    type?: unknown;
    message?: { role?: unknown; content?: unknown };
    kind?: unknown;
    cleared?: unknown;
    messages?: unknown;
  };
  switch (record.type) {
    case "session":
      return lineNumber === 1 ? null : "a session header appears after the first line";
    case "message": {
      const message = record.message;
      const validRole = message?.role === "user" || message?.role === "assistant";
      const validContent = typeof message?.content === "string" || Array.isArray(message?.content);
      return validRole && validContent ? null : "the message has no valid role or content";
    }
    case "turn_end":
    case "stop":
    case "repair":
    case "hook":
    case "permission_mode":
    case "task_started":
    case "task_notification":
    case "task_stopped":
    case "subagent":
    case "part":
      return null;
    case "compaction":
      return compactionProblem(record);
    default:
      return `unknown entry type ${JSON.stringify(record.type)}`;
  }
}

/** How much of a result recorded in a shape no tool gives is kept, as its JSON text. */
const UNREADABLE_RESULT_CHARS = 2_000;

/**
 * The message with each tool result's content as text or a list of parts, the only shapes the
 * rest of agentloop reads: a file edited by hand, or written by another program, may hold an
 * object there. The result is kept as its JSON text, so the session still resumes.
 */
function withReadableResults<M extends Message>(message: M): M {
  if (typeof message.content === "string") return message;
  if (!message.content.some(unreadableResult)) return message;
  const content = message.content.map((block) =>
    unreadableResult(block)
      ? { ...block, content: JSON.stringify(block.content).slice(0, UNREADABLE_RESULT_CHARS) }
      : block,
  );
  return { ...message, content } as M;
}

function unreadableResult(block: unknown): block is { type: "tool_result"; content: unknown } {
  // Any value may stand in a hand-edited file's list, null included.
  if (typeof block !== "object" || block === null) return false;
  const { type, content } = block as { type?: unknown; content?: unknown };
  return (
    type === "tool_result" &&
    content !== undefined &&
    typeof content !== "string" &&
    !Array.isArray(content)
  );
}

/** A compaction line is replayed on resume, so it must hold what replaying it needs. */
function compactionProblem(record: { kind?: unknown; cleared?: unknown; messages?: unknown }) {
  if (record.kind === "clear" && Array.isArray(record.cleared)) return null;
  if (record.kind === "summary" && Array.isArray(record.messages)) return null;
  return "the compaction record has no cleared results or summary messages";
}

/** Reads a session file, with the images it refers to loaded from beside it. */
export function readSession(path: string): SessionContents {
  const contents = parseSession(readFileSync(path, "utf8"));
  const directory = dirname(path);
  const entries = contents.entries.map((entry) =>
    entry.type === "message" ? { ...entry, message: loadImages(entry.message, directory) } : entry,
  );
  const messages = entries.flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
  return { ...contents, entries, messages };
}

export interface SessionSummary {
  id: string;
  path: string;
  startedAt: string;
  model: string;
  provider: string;
  cwd: string;
  turns: number;
  firstPrompt: string;
}

/** Sessions started in `cwd` (in any directory when it is undefined), newest first. */
export function listSessions(directory: string, cwd: string | undefined): SessionSummary[] {
  const summaries: SessionSummary[] = [];
  for (const path of sessionFiles(directory)) {
    // The list needs no images: they stay on disk.
    const { header, entries, messages } = parseSession(readFileSync(path, "utf8"));
    if (!header || (cwd !== undefined && header.cwd !== cwd)) continue;
    const first = messages.find((message) => message.role === "user");
    summaries.push({
      id: header.id,
      path,
      startedAt: header.startedAt,
      model: header.model,
      provider: header.provider,
      cwd: header.cwd,
      turns: entries.filter(
        (entry) => entry.type === "message" && entry.message.role === "assistant",
      ).length,
      firstPrompt: first ? (textOf(first).trim().split("\n")[0] ?? "") : "",
    });
  }
  return summaries.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

/**
 * The ids of the sessions started in `cwd`, newest first, as `listSessions` orders them, from
 * the header lines alone: completing `/resume` on every Tab must not read whole transcripts.
 */
export function sessionIds(directory: string, cwd: string): string[] {
  const headers: SessionHeader[] = [];
  for (const path of sessionFiles(directory)) {
    const header = readHeader(path);
    if (header?.cwd === cwd) headers.push(header);
  }
  return headers.sort((a, b) => b.startedAt.localeCompare(a.startedAt)).map((header) => header.id);
}

function sessionFiles(directory: string): string[] {
  try {
    return readdirSync(directory)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => join(directory, name));
  } catch {
    return [];
  }
}

/** More than any header line needs (its longest field is a path). */
const HEADER_BYTES = 16 * 1024;

function readHeader(path: string): SessionHeader | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const length = readSync(fd, buffer, 0, HEADER_BYTES, 0);
    const firstLine = buffer.toString("utf8", 0, length).split("\n")[0] ?? "";
    return parseSession(`${firstLine}\n`).header;
  } finally {
    closeSync(fd);
  }
}

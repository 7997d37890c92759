// What the checkpoints part writes in the session file, as part events, and how it is read back:
// a checkpoint before each prompt, each file the file tools saved before its first change in
// that prompt, what the prompt left behind when it ended, and each rewind. The session file is
// the only record: `agentloop rewind` needs nothing else (the blobs and the shadow repository
// hold the bytes the records name).

import { appendFileSync } from "node:fs";
import type { PartEvent } from "../core/events.js";
import type { SessionEntry } from "../session/session-file.js";
import type { FileState } from "./file-state.js";

export const PART_NAME = "checkpoints";

export interface Checkpoint {
  number: number;
  at: string;
  /** The prompt's first line, or what took the checkpoint ("before rewind to 2"). */
  prompt: string;
  /** The snapshot of the work tree, in a git work tree; null outside one. */
  tree: string | null;
  /**
   * True when the record was written before its snapshot was taken: the tree comes in a
   * `snapshot` record; a checkpoint whose snapshot never came (it failed, or the session was
   * killed first) keeps null.
   */
  pending?: boolean;
}

/** The snapshot of a checkpoint recorded as pending, taken while its prompt went on. */
export interface SnapshotTaken {
  checkpoint: number;
  /** Null when it failed. */
  tree: string | null;
  /** Why it failed. */
  error?: string;
}

/** A file the file tools changed during checkpoint `checkpoint`'s prompt, as it was before. */
export interface SavedFile {
  checkpoint: number;
  path: string;
  before: FileState;
}

/** How a prompt (or a rewind) left things: the work tree's snapshot, and the file tools' files. */
export interface Left {
  checkpoint: number;
  tree: string | null;
  files: Record<string, FileState>;
  /** The paths that changed since the checkpoint, for the list. */
  changed: string[];
}

export interface RewindRecord {
  to: number;
  code: boolean;
  conversation: boolean;
  /** The checkpoint taken before it, to undo it. */
  undo: number;
}

export interface CheckpointLog {
  checkpoints: Checkpoint[];
  saved: SavedFile[];
  left: Left[];
  rewinds: RewindRecord[];
}

export function checkpointEvent(checkpoint: Checkpoint): PartEvent {
  return {
    type: "part",
    part: PART_NAME,
    name: "checkpoint",
    line: `checkpoint ${checkpoint.number}${checkpoint.tree === null && !checkpoint.pending ? " (file tools only: bash's changes are not tracked outside git)" : ""}`,
    data: { ...checkpoint },
    history: { mark: historyMark(checkpoint.number) },
  };
}

export function snapshotEvent(snapshot: SnapshotTaken): PartEvent {
  const line =
    snapshot.tree === null
      ? `checkpoint ${snapshot.checkpoint}: no snapshot of the work tree (${snapshot.error}); only the file tools' changes can be rewound`
      : `checkpoint ${snapshot.checkpoint}: snapshot of the work tree taken`;
  return { type: "part", part: PART_NAME, name: "snapshot", line, data: { ...snapshot } };
}

export function savedEvent(saved: SavedFile, shown: string): PartEvent {
  return {
    type: "part",
    part: PART_NAME,
    name: "file_saved",
    line: `checkpoint ${saved.checkpoint}: kept ${shown} as it was`,
    data: { ...saved },
  };
}

export function leftEvent(left: Left): PartEvent {
  const files = left.changed.length;
  return {
    type: "part",
    part: PART_NAME,
    name: "left",
    line: `checkpoint ${left.checkpoint}: ${files} ${files === 1 ? "file" : "files"} changed since`,
    data: { ...left },
  };
}

/** What a rewind takes back, in words. */
export function scopeOf(code: boolean, conversation: boolean): string {
  return code && conversation ? "code and conversation" : code ? "code" : "conversation";
}

export function rewindEvent(rewind: RewindRecord, line: string): PartEvent {
  const event: PartEvent = {
    type: "part",
    part: PART_NAME,
    name: "rewind",
    line,
    data: { ...rewind },
  };
  if (rewind.conversation) event.history = { backTo: historyMark(rewind.to) };
  return event;
}

/** The history before checkpoint `number`'s prompt, as a reader of the session file names it. */
function historyMark(number: number): string {
  return `checkpoint ${number}`;
}

/** The part's records in a session's entries, in file order. */
export function checkpointLog(entries: readonly SessionEntry[]): CheckpointLog {
  const log: CheckpointLog = { checkpoints: [], saved: [], left: [], rewinds: [] };
  for (const entry of entries) {
    if (entry.type !== "part" || entry.part !== PART_NAME || !entry.data) continue;
    const data = entry.data as never;
    if (entry.name === "checkpoint") log.checkpoints.push(data);
    else if (entry.name === "file_saved") log.saved.push(data);
    else if (entry.name === "left") log.left.push(data);
    else if (entry.name === "rewind") log.rewinds.push(data);
    else if (entry.name === "snapshot") tookSnapshot(log, data);
  }
  return log;
}

/** A pending checkpoint's snapshot, once taken, is its tree. */
function tookSnapshot(log: CheckpointLog, snapshot: SnapshotTaken): void {
  const checkpoint = log.checkpoints.findLast((each) => each.number === snapshot.checkpoint);
  if (!checkpoint?.pending) return;
  checkpoint.tree = snapshot.tree;
  checkpoint.pending = undefined;
}

/**
 * Appends a record to a session file from outside its writer (`agentloop rewind`, /rewind): one
 * line, in the writer's shape, with O_APPEND as the writer uses, so the two never interleave.
 */
export function appendRecord(sessionFile: string, event: PartEvent): void {
  appendFileSync(sessionFile, `${JSON.stringify({ ...event, at: new Date().toISOString() })}\n`);
}

// What the checkpoints part writes in the session file, as part events, and how it is read back:
// a checkpoint before each prompt, each file the file tools saved before its first change in
// that prompt, what the prompt left behind when it ended, and each rewind, which takes a
// checkpoint of its own, saves what it overwrites and says how it left things under names of
// its own (`rewind_checkpoint`, `rewind_saved`, `rewind_left`), so a reader of the file (the
// viewer) tells a rewind's records from a prompt's. The session file is the only record:
// `agentloop rewind` needs nothing else (the blobs and the shadow repository hold the bytes the
// records name).

import { appendFileSync } from "node:fs";
import type { PartEvent } from "../core/events.js";
import { plural } from "../core/wording.js";
import type { SessionEntry } from "../session/session-file.js";
import type { FileState } from "./file-state.js";

export const PART_NAME = "checkpoints";

export interface Checkpoint {
  /** One running number for prompts and rewinds alike; people see names (checkpoint-names.ts). */
  number: number;
  at: string;
  /** The prompt's first line, or what took the checkpoint ("rewind to before prompt 2"). */
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

/** Who took a checkpoint: a prompt, or a rewind (to be undone by going back to it). */
export type CheckpointKind = "prompt" | "rewind";

export interface CheckpointLog {
  checkpoints: (Checkpoint & { kind: CheckpointKind })[];
  saved: SavedFile[];
  left: Left[];
  rewinds: RewindRecord[];
}

/** The record names of a prompt's checkpoint, saved files and end, and of a rewind's. */
const NAMES = {
  prompt: { checkpoint: "checkpoint", saved: "file_saved", left: "left" },
  rewind: { checkpoint: "rewind_checkpoint", saved: "rewind_saved", left: "rewind_left" },
} as const;

/** `name`: how a person names it ("2", "r1"). */
export function checkpointEvent(
  checkpoint: Checkpoint,
  kind: CheckpointKind,
  name: string,
): PartEvent {
  const untracked =
    checkpoint.tree === null && !checkpoint.pending
      ? " (file tools only: bash's changes are not tracked outside git)"
      : "";
  return {
    type: "part",
    part: PART_NAME,
    name: NAMES[kind].checkpoint,
    line: `checkpoint ${name}, before ${kind === "prompt" ? "the prompt" : "the rewind"}${untracked}`,
    data: { ...checkpoint },
    history: { mark: historyMark(checkpoint.number) },
  };
}

/** `name`: how a person names the checkpoint ("2"). */
export function snapshotEvent(snapshot: SnapshotTaken, name: string): PartEvent {
  const line =
    snapshot.tree === null
      ? `checkpoint ${name}: no snapshot of the work tree (${snapshot.error}); only the file tools' changes can be rewound`
      : `checkpoint ${name}: snapshot of the work tree taken`;
  return { type: "part", part: PART_NAME, name: "snapshot", line, data: { ...snapshot } };
}

export function savedEvent(saved: SavedFile, kind: CheckpointKind, shown: string): PartEvent {
  const by = kind === "prompt" ? "before its first change" : "before the rewind wrote it";
  return {
    type: "part",
    part: PART_NAME,
    name: NAMES[kind].saved,
    line: `kept ${shown} as it was ${by}`,
    data: { ...saved },
  };
}

export function leftEvent(left: Left, kind: CheckpointKind): PartEvent {
  const files = plural(left.changed.length, "file");
  return {
    type: "part",
    part: PART_NAME,
    name: NAMES[kind].left,
    line: `${kind === "prompt" ? "the prompt" : "the rewind"} left ${files} changed`,
    data: { ...left },
  };
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
    for (const kind of ["prompt", "rewind"] as const) {
      const names = NAMES[kind];
      if (entry.name === names.checkpoint) log.checkpoints.push({ ...(data as Checkpoint), kind });
      else if (entry.name === names.saved) log.saved.push(data);
      else if (entry.name === names.left) log.left.push(data);
    }
    if (entry.name === "rewind") log.rewinds.push(data);
    if (entry.name === "snapshot") tookSnapshot(log, data);
  }
  // Files written before rewinds had records of their own name a rewind's checkpoint by its undo.
  const undos = new Set(log.rewinds.map((rewind) => rewind.undo));
  for (const checkpoint of log.checkpoints)
    if (undos.has(checkpoint.number)) checkpoint.kind = "rewind";
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

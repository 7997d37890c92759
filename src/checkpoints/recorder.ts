// Takes one session's checkpoints: the snapshot before a prompt, each file the file tools are
// about to change (saved once per prompt, before its first change), and what the prompt left
// behind when it ended. The file tools' saved files live beside the session file, in
// `<session>/checkpoints/blobs/`, with the session's index of the work tree; the snapshots
// themselves are in the work tree's store, shared by its sessions (shadow-store.ts).
//
// A session takes its snapshots in the background, one after another, so a prompt's request
// does not wait for one: the checkpoint is recorded at once and its tree follows. Whatever may
// change a file waits for `settled()` first.

import { join, relative } from "node:path";
import { workTreeRootOf } from "../core/git-directory.js";
import { currentState, type FileState, saveState } from "./file-state.js";
import type { Checkpoint, Left, SavedFile } from "./records.js";
import { openShadowRepo, type ShadowRepo } from "./shadow-repo.js";
import { shadowPlace } from "./shadow-store.js";

export interface CheckpointData {
  blobs: string;
  /** The work tree's snapshots; null outside a git work tree. */
  shadow: ShadowRepo | null;
}

/**
 * Where a session's checkpoints are kept: `sessionDirectory` is the session's own, beside its
 * file; `env` says where agentloop's state is (the work tree's store).
 */
export function checkpointData(
  sessionDirectory: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): CheckpointData {
  const base = join(sessionDirectory, "checkpoints");
  const root = workTreeRootOf(cwd);
  const shadow = root ? openShadowRepo(shadowPlace(base, root, env), root, env) : null;
  return { blobs: join(base, "blobs"), shadow };
}

/** A checkpoint recorded before its snapshot was taken, and that snapshot's tree to come. */
export interface BackgroundCheckpoint {
  checkpoint: Checkpoint;
  /** The tree, or null outside git; rejects when the snapshot failed (the checkpoint keeps null). */
  tree: Promise<string | null>;
}

export interface Recorder {
  readonly data: CheckpointData;
  /** Takes checkpoint `number` before `prompt`, its snapshot included. */
  checkpoint(number: number, prompt: string): Checkpoint;
  /** Takes checkpoint `number` before `prompt` at once, its snapshot in the background. */
  checkpointInBackground(number: number, prompt: string): BackgroundCheckpoint;
  /** Resolves once every snapshot begun so far is taken (or failed); never rejects. */
  settled(): Promise<void>;
  /** Saves `path` before a file tool changes it: once per checkpoint; null when already saved. */
  saveBefore(path: string): SavedFile | null;
  /** How the prompt left things, once it ended; null before any checkpoint. */
  leave(): Left | null;
  /** The same, its snapshot taken in the background after those begun before. */
  leaveInBackground(): Promise<Left | null>;
  /** How a prompt that changed nothing left things: its checkpoint's snapshot, once taken. */
  leaveUnchanged(): Promise<Left | null>;
  /** Whether snapshots begun are still being taken. */
  busy(): boolean;
}

export function createRecorder(data: CheckpointData, cwd: string): Recorder {
  let current: Checkpoint | null = null;
  let saved = new Map<string, FileState>();
  /** The snapshots begun, in order: each starts once the one before is over. */
  let queue: Promise<unknown> = Promise.resolve();
  let unfinished = 0;
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    unfinished += 1;
    const done = queue.then(work).finally(() => {
      unfinished -= 1;
    });
    queue = done.catch(() => undefined);
    return done;
  };
  const snapshot = () => {
    try {
      return data.shadow?.snapshot() ?? null;
    } catch {
      // A snapshot that failed (a disk full, a broken work tree) leaves this prompt to the file tools.
      return null;
    }
  };
  /** How the prompt of `checkpoint` left things, given the snapshot taken as it ended. */
  const left = (checkpoint: Checkpoint, files: Record<string, FileState>, tree: string | null) => {
    const changed = new Set(Object.keys(files).map((path) => relative(cwd, path)));
    if (tree !== null && checkpoint.tree !== null && data.shadow) {
      const root = data.shadow.root;
      for (const path of data.shadow.changed(checkpoint.tree, tree)) {
        changed.add(relative(cwd, join(root, path)));
      }
    }
    return { checkpoint: checkpoint.number, tree, files, changed: [...changed].sort() };
  };
  const filesNow = () => {
    const files: Record<string, FileState> = {};
    for (const path of saved.keys()) files[path] = currentState(path);
    return files;
  };
  return {
    data,
    checkpoint(number, prompt) {
      current = { number, at: new Date().toISOString(), prompt, tree: snapshot() };
      saved = new Map();
      return current;
    },
    checkpointInBackground(number, prompt) {
      const shadow = data.shadow;
      const checkpoint: Checkpoint = { number, at: new Date().toISOString(), prompt, tree: null };
      current = checkpoint;
      saved = new Map();
      if (!shadow) return { checkpoint, tree: Promise.resolve(null) };
      checkpoint.pending = true;
      const tree = inTurn(async () => {
        try {
          checkpoint.tree = await shadow.snapshotInBackground();
          return checkpoint.tree;
        } finally {
          checkpoint.pending = undefined;
        }
      });
      return { checkpoint: { ...checkpoint }, tree };
    },
    settled: () => queue.then(() => undefined),
    busy: () => unfinished > 0,
    saveBefore(path) {
      if (!current || saved.has(path)) return null;
      let before: FileState;
      try {
        before = saveState(path, data.blobs);
      } catch {
        return null;
      }
      saved.set(path, before);
      return { checkpoint: current.number, path, before };
    },
    leave() {
      if (!current) return null;
      const tree = current.tree === null ? null : snapshot();
      return left(current, filesNow(), tree);
    },
    leaveInBackground() {
      const checkpoint = current;
      if (!checkpoint) return Promise.resolve(null);
      // The file tools' files as the prompt left them now; the work tree once the snapshot
      // before it is taken.
      const files = filesNow();
      return inTurn(async () => {
        const tree =
          checkpoint.tree === null || !data.shadow
            ? null
            : await data.shadow.snapshotInBackground().catch(() => null);
        return left(checkpoint, files, tree);
      });
    },
    leaveUnchanged() {
      const checkpoint = current;
      if (!checkpoint) return Promise.resolve(null);
      const files = filesNow();
      return inTurn(async () => left(checkpoint, files, checkpoint.tree));
    },
  };
}

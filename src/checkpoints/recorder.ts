// Takes one session's checkpoints: the snapshot before a prompt, each file the file tools are
// about to change (saved once per prompt, before its first change), and what the prompt left
// behind when it ended. Its data lives beside the session file, in `<session>/checkpoints/`:
// `blobs/` (the file tools' saved files) and `shadow.git` (the work tree's snapshots), so it is
// removed with the session.

import { join, relative } from "node:path";
import { workTreeRootOf } from "../core/git-directory.js";
import { currentState, type FileState, saveState } from "./file-state.js";
import type { Checkpoint, Left, SavedFile } from "./records.js";
import { openShadowRepo, type ShadowRepo } from "./shadow-repo.js";

export interface CheckpointData {
  blobs: string;
  /** The work tree's snapshots; null outside a git work tree, or when git failed to start. */
  shadow: ShadowRepo | null;
}

/** Where a session's checkpoints are kept: `directory` is the session's own, beside its file. */
export function checkpointData(
  sessionDirectory: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): CheckpointData {
  const base = join(sessionDirectory, "checkpoints");
  const root = workTreeRootOf(cwd);
  let shadow: ShadowRepo | null = null;
  try {
    shadow = root ? openShadowRepo(join(base, "shadow.git"), root, env) : null;
  } catch {
    shadow = null;
  }
  return { blobs: join(base, "blobs"), shadow };
}

export interface Recorder {
  readonly data: CheckpointData;
  /** Takes checkpoint `number` before `prompt`. */
  checkpoint(number: number, prompt: string): Checkpoint;
  /** Saves `path` before a file tool changes it: once per checkpoint; null when already saved. */
  saveBefore(path: string): SavedFile | null;
  /** How the prompt left things, once it ended; null before any checkpoint. */
  leave(): Left | null;
}

export function createRecorder(data: CheckpointData, cwd: string): Recorder {
  let current: Checkpoint | null = null;
  let saved = new Map<string, FileState>();
  const snapshot = () => {
    try {
      return data.shadow?.snapshot() ?? null;
    } catch {
      // A snapshot that failed (a disk full, a broken work tree) leaves this prompt to the file tools.
      return null;
    }
  };
  return {
    data,
    checkpoint(number, prompt) {
      current = { number, at: new Date().toISOString(), prompt, tree: snapshot() };
      saved = new Map();
      return current;
    },
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
      const files: Record<string, FileState> = {};
      for (const path of saved.keys()) files[path] = currentState(path);
      const changed = new Set(Object.keys(files).map((path) => relative(cwd, path)));
      if (tree !== null && current.tree !== null && data.shadow) {
        const root = data.shadow.root;
        for (const path of data.shadow.changed(current.tree, tree)) {
          changed.add(relative(cwd, join(root, path)));
        }
      }
      return { checkpoint: current.number, tree, files, changed: [...changed].sort() };
    },
  };
}

// What the model has read in this session, file by file, so that `write` and `edit` change
// only a file the model has seen, as it is on disk now: a file the user edited meanwhile is
// never overwritten with the model's older idea of it.

import { statSync } from "node:fs";

interface Seen {
  mtimeMs: number;
  size: number;
}

export interface FileReads {
  /**
   * Notes the file as the model now knows it (after reading it or writing it). `at` is where
   * to look at it when that is not `path`: the file a tool pinned (tools/pinned-file.ts).
   */
  remember(path: string, at?: string): void;
  /**
   * Why the model may not change the existing file at `path` (looked at `at`) yet, or null
   * when it may: it has not read it, or the file changed on disk since.
   */
  staleReason(path: string, at?: string): string | null;
}

/** `path` is always absolute and resolved (the tools resolve it before asking). */
export function createFileReads(): FileReads {
  const seen = new Map<string, Seen>();
  return {
    remember(path, at = path) {
      const { mtimeMs, size } = statSync(at);
      seen.set(path, { mtimeMs, size });
    },
    staleReason(path, at = path) {
      const before = seen.get(path);
      if (!before) {
        return `${path} exists and has not been read in this session; read it first, so that nothing in it is lost.`;
      }
      const now = statSync(at);
      if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) {
        return `${path} changed on disk since it was last read (someone else edited it); read it again before changing it.`;
      }
      return null;
    },
  };
}

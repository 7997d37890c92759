// What the model has read in this session, file by file, so that `write` and `edit` change
// only a file the model has seen, as it is on disk now: a file the user edited meanwhile is
// never overwritten with the model's older idea of it.

import { statSync } from "node:fs";

interface Seen {
  mtimeMs: number;
  size: number;
}

export interface FileReads {
  /** Notes the file as the model now knows it (after reading it or writing it). */
  remember(path: string): void;
  /**
   * Why the model may not change the existing file at `path` yet, or null when it may:
   * it has not read it, or the file changed on disk since.
   */
  staleReason(path: string): string | null;
}

/** `path` is always absolute and resolved (the tools resolve it before asking). */
export function createFileReads(): FileReads {
  const seen = new Map<string, Seen>();
  return {
    remember(path) {
      const { mtimeMs, size } = statSync(path);
      seen.set(path, { mtimeMs, size });
    },
    staleReason(path) {
      const before = seen.get(path);
      if (!before) {
        return `${path} exists and has not been read in this session; read it first, so that nothing in it is lost.`;
      }
      const now = statSync(path);
      if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) {
        return `${path} changed on disk since it was last read (someone else edited it); read it again before changing it.`;
      }
      return null;
    },
  };
}

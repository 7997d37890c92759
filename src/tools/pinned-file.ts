// The file tools reach the file the permission check judged, not whatever its path names by
// the time they write. A command running beside the session (a background loop) can swap a
// link between the check and the write: `write d/x` judged while `d` led into the workspace
// would land in $HOME once `d` leads there. So a file tool opens the directory the check
// judged, checks that the descriptor is that directory (core/opened-path.ts), and reaches the
// file through the descriptor from then on, never through the path again; the file itself is
// opened without following a link, and a write replaces a link swapped in rather than writing
// through it. Where the platform cannot say where a descriptor is (not Linux), the judged real
// path is used as a string: a link the model named is not followed again, but a directory of
// that path swapped for a link afterwards would be.

import { closeSync, constants, mkdirSync, openSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { descriptorPath, openedPath } from "../core/opened-path.js";

export interface PinnedFile {
  /** The path for fs calls: through the directory's descriptor where there is one. */
  path: string;
  /**
   * Checks, right before a change, that the directory is still where it was judged to be;
   * the sentence saying it moved, or null.
   */
  moved(): string | null;
  close(): void;
}

/** Opening flags that never follow a link in the last part of a path. */
export const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Pins the directory of `real` (a path the permission check resolved, every link in it
 * followed). With `create`, the directories it lacks are made one by one, each through the
 * descriptor of the one above. A sentence instead when the directory is not what was judged;
 * the file system's error (ENOENT, ENOTDIR, ...) is thrown as it came.
 */
export function pinFile(real: string, options: { create: boolean }): PinnedFile | string {
  const directory = dirname(real);
  const missing: string[] = [];
  let existing = directory;
  let descriptor: number | null = null;
  while (descriptor === null) {
    try {
      descriptor = openSync(existing, constants.O_RDONLY | DIRECTORY);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" || !options.create || dirname(existing) === existing) throw error;
      missing.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
  const judged = (at: number, expected: string) => {
    const opened = openedPath(at);
    return opened === null || opened === expected
      ? null
      : `${expected} changed where it leads since it was approved (it is now ${opened}); nothing was changed`;
  };
  let current: number = descriptor;
  let currentPath = existing;
  const problem = judged(current, currentPath);
  if (problem) {
    closeSync(current);
    return problem;
  }
  try {
    for (const part of missing) {
      const through = join(descriptorPath(current) ?? currentPath, part);
      try {
        mkdirSync(through);
      } catch (error) {
        // Made meanwhile: opened below only if it is a directory and no link.
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const next = openSync(through, constants.O_RDONLY | DIRECTORY | NO_FOLLOW);
      closeSync(current);
      current = next;
      currentPath = join(currentPath, part);
    }
  } catch (error) {
    closeSync(current);
    throw error;
  }
  const pinned = current;
  return {
    path: join(descriptorPath(pinned) ?? directory, basename(real)),
    moved: () => judged(pinned, directory),
    close: () => closeSync(pinned),
  };
}

const DIRECTORY = constants.O_DIRECTORY ?? 0;

// Where a path really points, symbolic links resolved, also for a path that does not exist yet:
// the file tools judge a path by it, and Seatbelt, which matches the paths the kernel resolved
// (/private/tmp, never /tmp), is given paths in that form.

import { readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/**
 * The path with every symbolic link resolved: its own if it exists, else its nearest existing
 * ancestor's, with the rest appended (a new file is judged by the directory it lands in).
 */
export function realTarget(path: string, links = 0): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    // Missing, or a link to something missing: a write would create what the link names.
  }
  if (links < MAX_LINKS) {
    try {
      return realTarget(resolve(dirname(absolute), readlinkSync(absolute)), links + 1);
    } catch {
      // Not a link.
    }
  }
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(realTarget(parent, links), basename(absolute));
}

/** As many links in a row as Linux follows before it gives up (ELOOP). */
const MAX_LINKS = 40;

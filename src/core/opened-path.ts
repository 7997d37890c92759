// Where an open file descriptor really is. A path can be changed between the moment it is
// judged and the moment it is opened (a link swapped in); the descriptor cannot. On Linux the
// kernel says where a descriptor points through /proc/self/fd, so whoever judged a path can
// check that what was opened is what was judged, and then reach the directory's entries
// through the descriptor (`/proc/self/fd/N/name`), never through the path again.

import { readlinkSync } from "node:fs";

/** The directory that names a descriptor's file, or null where there is none (not Linux). */
export function descriptorPath(descriptor: number): string | null {
  return process.platform === "linux" ? `/proc/self/fd/${descriptor}` : null;
}

/** The real path of what `descriptor` has open, or null when the platform cannot say. */
export function openedPath(descriptor: number): string | null {
  const link = descriptorPath(descriptor);
  if (link === null) return null;
  try {
    return readlinkSync(link);
  } catch {
    return null;
  }
}

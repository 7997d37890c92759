// Replacing a file's content all at once: the new bytes go to a temporary file beside it, which
// then takes the file's name. Whoever reads the file (a running build, an editor, a crash)
// sees the old content or the new, never half of it, and a failed write leaves no debris.

import { randomBytes } from "node:crypto";
import { chmod, lstat, open, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes `data` to `path`. An existing file keeps its permission bits, and a symbolic link
 * stays a link (its target gets the new content); a new file gets `mode` (default 0o666,
 * less the umask, as with fs.writeFile). The owner becomes whoever runs this, as with any editor that saves this way.
 * `followLink: false` is for a path already judged where it leads (the file tools'): a link
 * found there now was swapped in since, and is replaced, never written through.
 */
export async function writeFileAtomically(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; followLink?: boolean } = {},
): Promise<void> {
  const follow = options.followLink ?? true;
  const target = !follow
    ? path
    : await realpath(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return path;
        throw error;
      });
  const existing = await (follow ? stat : lstat)(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  const temp = join(
    dirname(target),
    `.${basename(target)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    const handle = await open(temp, "wx", options.mode ?? 0o666);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // The umask applied at creation; an existing file's own bits must survive exactly.
    if (existing?.isFile()) await chmod(temp, existing.mode & 0o7777);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

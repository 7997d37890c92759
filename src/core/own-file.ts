// Reading a file agentloop reads on its own account (project instructions and their imports,
// skills, commands, agent definitions, settings, .mcp.json, .env, memory): the file is judged
// where it leads, not where it is written. A repository can commit a symbolic link, so an
// AGENTS.md that links to ~/.aws/credentials or /proc/self/environ would otherwise put the
// person's secrets into the system prompt, and a .env that links to /dev/zero would read
// forever. So the path is resolved with its links and must stay inside the place the file
// belongs to, be a regular file and be under a size limit; otherwise it is not read, and the
// caller names it in a notice. A link that stays inside its place still works.

import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import { directoriesFromRepositoryRoot } from "./git-directory.js";
import { openedPath } from "./opened-path.js";

/** Far above any instructions, settings or .env a person writes; far below what hangs a run. */
export const MAX_OWN_FILE_BYTES = 1024 * 1024;

/** What reading gave: the text, nothing there at all, or why it was not read. */
export type OwnFile = { text: string } | { missing: true } | { skipped: string };

/**
 * Reads `file` if it leads inside one of `places` (directories; their own links resolved too),
 * is a regular file and holds at most `maxBytes`. `skipped` is a clause for the caller's notice:
 * "it leads to /home/me/.ssh/id_rsa, outside /work/repo".
 */
export function readOwnFile(
  file: string,
  places: readonly string[],
  maxBytes = MAX_OWN_FILE_BYTES,
): OwnFile {
  let real: string;
  try {
    real = realpathSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A link to nothing reads as nothing, as the file would if it were missing.
    if (code === "ENOENT" || code === "ENOTDIR") return { missing: true };
    return { skipped: reasonOf(error) };
  }
  const roots = places.flatMap(realOrNone);
  if (!roots.some((root) => isWithin(root, real))) {
    return { skipped: `it leads to ${real}, outside ${places.join(" and ")}` };
  }
  let descriptor: number;
  try {
    // Not following a link swapped in since realpath, and not waiting on a pipe's writer.
    descriptor = openSync(real, constants.O_RDONLY | NO_FOLLOW | NON_BLOCKING);
  } catch (error) {
    return { skipped: reasonOf(error) };
  }
  try {
    const opened = openedPath(descriptor) ?? real;
    if (opened !== real) return { skipped: `it moved to ${opened} while it was opened` };
    if (!fstatSync(descriptor).isFile()) return { skipped: "it is not a regular file" };
    const bytes = readAtMost(descriptor, maxBytes + 1);
    if (bytes.length > maxBytes) {
      return { skipped: `it is larger than ${Math.round(maxBytes / 1024)} KB` };
    }
    return { text: bytes.toString("utf8") };
  } catch (error) {
    return { skipped: reasonOf(error) };
  } finally {
    closeSync(descriptor);
  }
}

/** The repository holding `cwd` (its root), or `cwd` itself outside one: a project's place. */
export function repositoryPlace(cwd: string): string {
  return directoriesFromRepositoryRoot(cwd)[0] ?? cwd;
}

/**
 * Where the person's own files (their AGENTS.md and its imports, their skills, commands,
 * agents and settings) may lead: their home and their configuration directory, so a link into
 * a dotfiles checkout keeps working.
 */
export function personalPlaces(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || homedir();
  return [home, env.XDG_CONFIG_HOME || join(home, ".config")];
}

/** True when `path` is `root` or inside it (both already real paths). */
export function isWithin(root: string, path: string): boolean {
  const inside = relative(root, path);
  return inside === "" || (!inside.startsWith("..") && !isAbsolute(inside));
}

// Windows has neither; there the realpath check above is what holds.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCKING = constants.O_NONBLOCK ?? 0;

/** Reads up to `limit` bytes: a file in /proc says its size is 0, so its size is not trusted. */
function readAtMost(descriptor: number, limit: number): Buffer {
  const buffer = Buffer.alloc(Math.min(limit, 64 * 1024));
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const read = readSync(descriptor, buffer, 0, Math.min(buffer.length, limit - total), null);
    if (read === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, read)));
    total += read;
  }
  return Buffer.concat(chunks);
}

function realOrNone(path: string): string[] {
  try {
    return [realpathSync(path)];
  } catch {
    return [];
  }
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP") return "it is a loop of links, or a link where none may be";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "it is not a regular file";
  return (error as Error).message;
}

// The board's lock: one writer at a time, across processes. A lock is a directory made with
// mkdir, which the file system creates for exactly one caller; its owner file names the process
// that holds it. A lock whose process is gone (killed mid-write) is stale: the next writer moves
// it aside and takes its place, so a crash never leaves the board locked for good.

import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** How long a writer waits for the lock before it says who holds it. */
const WAIT_MS = 10_000;
/** A lock with no owner file yet is its maker's, between mkdir and writing; after this, a crash's. */
const UNNAMED_STALE_MS = 5_000;

export class BoardLockedError extends Error {}

/** Runs `work` while holding the lock in `directory` (the board's), then lets it go. */
export async function withBoardLock<T>(directory: string, work: () => Promise<T>): Promise<T> {
  const lock = join(directory, ".lock");
  const deadline = Date.now() + WAIT_MS;
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    if (await take(lock)) break;
    if (await stale(lock)) {
      await moveAside(lock);
      continue;
    }
    if (Date.now() > deadline) {
      const holder = await ownerOf(lock);
      throw new BoardLockedError(
        `The task board in ${directory} stayed locked by ${holder ? `process ${holder}` : "another process"} for ${WAIT_MS / 1000} s.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function take(lock: string): Promise<boolean> {
  try {
    await mkdir(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  await writeFile(join(lock, "owner"), String(process.pid));
  return true;
}

async function ownerOf(lock: string): Promise<number | null> {
  const text = await readFile(join(lock, "owner"), "utf8").catch(() => "");
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

async function stale(lock: string): Promise<boolean> {
  const pid = await ownerOf(lock);
  if (pid !== null) return !alive(pid);
  const made = await stat(lock).catch(() => null);
  return made !== null && Date.now() - made.mtimeMs > UNNAMED_STALE_MS;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Renames the stale lock before removing it: the rename succeeds for one writer only. A writer
 * that found the lock stale but renamed a live one (taken since by a quicker writer) puts it
 * back; only a third writer taking the lock in that instant could then share it.
 */
async function moveAside(lock: string): Promise<void> {
  const aside = `${lock}.stale-${process.pid}-${Date.now()}`;
  try {
    await rename(lock, aside);
  } catch {
    return;
  }
  if (await stale(aside)) {
    await rm(aside, { recursive: true, force: true });
  } else {
    await rename(aside, lock).catch(() => rm(aside, { recursive: true, force: true }));
  }
}

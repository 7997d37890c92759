// Small reads of /proc for finding a command's processes. Node's readFileSync reads a file
// whose size is unknown (every /proc file says 0) into a fresh 64 KB buffer, for a stat line of
// 300 bytes; these reads share one buffer instead, grown only when a file does not fit.

import { closeSync, openSync, readdirSync, readSync } from "node:fs";

export interface ProcessInfo {
  pid: number;
  parent: number;
  group: number;
  /** When the process started, in clock ticks since boot: fixed for its whole life. */
  startTime: number;
  /** A zombie, or dead: it can no longer run or be ended. */
  exited: boolean;
}

let shared = Buffer.allocUnsafe(1024);

/** The file's bytes, valid until the next read; null if it is gone or not readable. */
function readProcFile(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === shared.length) {
        const larger = Buffer.allocUnsafe(2 * shared.length);
        shared.copy(larger);
        shared = larger;
      }
      const read = readSync(fd, shared, length, shared.length - length, null);
      if (read === 0) return shared.subarray(0, length);
      length += read;
    }
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The kernel's PF_KTHREAD flag: kernel threads are never ours, and reading them is slow. */
const KERNEL_THREAD = 0x00200000;

/** What /proc/PID/stat says of the process; null if it is gone or a kernel thread. */
export function readStat(pid: number): ProcessInfo | null {
  const bytes = readProcFile(`/proc/${pid}/stat`);
  if (!bytes) return null;
  const stat = bytes.toString("latin1");
  // The command name is in parentheses and may itself contain spaces and parentheses; the
  // fields after it start with the third, the state.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 20);
  const [state, parent, group] = fields;
  if (Number(fields[6]) & KERNEL_THREAD) return null;
  return {
    pid,
    parent: Number(parent),
    group: Number(group),
    startTime: Number(fields[19]),
    exited: state === "Z" || state === "X",
  };
}

/** Children the thread `tid` of process `pid` forked, or adopted as orphans. */
export function readChildren(pid: number, tid = pid): number[] {
  const list = readProcFile(`/proc/${pid}/task/${tid}/children`)?.toString("latin1") ?? "";
  return list.split(" ").filter(Boolean).map(Number);
}

/** Children of every thread of the process: a program may fork from any of them. */
export function readAllChildren(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return threads.flatMap((tid) => readChildren(pid, Number(tid)));
}

/** The process's environment at exec: NUL-separated entries, valid until the next read. */
export function readEnviron(pid: number): Buffer | null {
  return readProcFile(`/proc/${pid}/environ`);
}

/** PIDs of every process on the machine (of this PID namespace). */
export function listPids(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

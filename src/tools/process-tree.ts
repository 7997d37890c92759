// Finds and ends every process a command started, including the ones that left its process
// group. A process group catches ordinary children and grandchildren, but `setsid`, `nohup ...
// &` under a double fork, and daemons start new sessions and get re-parented to init, so
// neither the group nor the parent links lead to them. What they do keep is the environment
// they were started with: every command gets a marker variable, and /proc/PID/environ (the
// environment at exec, readable for our own processes) shows which processes carry it. A
// process that clears its environment is still found while its parent is one of ours. This
// needs no cgroups and no privileges; it is Linux-only, like the rest of the tool.

import { readdirSync, readFileSync } from "node:fs";

/** The environment variable that tags every process a command starts. */
export const JOB_MARKER_VARIABLE = "AGENTLOOP_JOB";

/** How long processes get to exit after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 2000;

export interface ProcessSelector {
  /** Process groups whose members are ours. */
  groups: readonly number[];
  /** Marker values whose carriers are ours; a value ending in ":" matches as a prefix. */
  markers: readonly string[];
}

interface ProcessInfo {
  pid: number;
  parent: number;
  group: number;
}

/** PIDs of the live processes the selector picks, and of their descendants. */
export function findProcesses(selector: ProcessSelector): number[] {
  const groups = new Set(selector.groups);
  const needles = selector.markers.map((marker) => ({
    bytes: Buffer.from(`${JOB_MARKER_VARIABLE}=${marker}`),
    exact: !marker.endsWith(":"),
  }));
  const children = new Map<number, number[]>();
  const found: number[] = [];
  for (const info of listProcesses()) {
    const siblings = children.get(info.parent);
    if (siblings) siblings.push(info.pid);
    else children.set(info.parent, [info.pid]);
    if (groups.has(info.group) || carriesMarker(info.pid, needles)) found.push(info.pid);
  }
  // Children of ours are ours too, even if they dropped the marker or changed group.
  const ours = new Set<number>();
  for (let pid = found.pop(); pid !== undefined; pid = found.pop()) {
    if (ours.has(pid) || pid === process.pid) continue;
    ours.add(pid);
    found.push(...(children.get(pid) ?? []));
  }
  return [...ours];
}

/**
 * Ends the selected processes: SIGTERM to let them clean up, then SIGKILL for whatever is
 * still there after `graceMs`, repeated until none is left (a process may fork while dying).
 */
export async function killProcesses(selector: ProcessSelector, graceMs: number): Promise<void> {
  const terminated = signalAll(selector, "SIGTERM");
  const deadline = Date.now() + graceMs;
  // Watching the signalled processes is cheap; a full scan below catches any newcomer.
  while (Date.now() < deadline && terminated.some((pid) => readStat(pid) !== null)) {
    await sleep(25);
  }
  for (let round = 0; round < 50; round++) {
    if (signalAll(selector, "SIGKILL").length === 0) return;
    await sleep(10);
  }
}

/** Signals the groups (atomically, so a forking member cannot slip away) and each process. */
function signalAll(selector: ProcessSelector, signal: NodeJS.Signals): number[] {
  for (const group of selector.groups) trySignal(-group, signal);
  const pids = findProcesses(selector);
  for (const pid of pids) trySignal(pid, signal);
  return pids;
}

function trySignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone, or not ours to signal: either way there is nothing more to do.
  }
}

function listProcesses(): ProcessInfo[] {
  const result: ProcessInfo[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const info = readStat(Number(name));
    if (info) result.push(info);
  }
  return result;
}

/** The kernel's PF_KTHREAD flag: kernel threads are never ours, and reading them is slow. */
const KERNEL_THREAD = 0x00200000;

/**
 * Parent and group from /proc/PID/stat; null for processes that are gone, already dead
 * (zombies), or kernel threads.
 */
function readStat(pid: number): ProcessInfo | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return null;
  }
  // The command name is in parentheses and may itself contain spaces and parentheses.
  const [state, parent, group, , , , flags] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (state === "Z" || state === "X" || Number(flags) & KERNEL_THREAD) return null;
  return { pid, parent: Number(parent), group: Number(group) };
}

function carriesMarker(pid: number, needles: readonly Needle[]): boolean {
  if (needles.length === 0) return false;
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false;
  }
  // Entries are NUL-separated "NAME=value" strings; a match must be a whole entry (or its start).
  return needles.some(({ bytes, exact }) => {
    for (let at = environ.indexOf(bytes); at !== -1; at = environ.indexOf(bytes, at + 1)) {
      const startsEntry = at === 0 || environ[at - 1] === 0;
      const end = environ[at + bytes.length];
      if (startsEntry && (!exact || end === undefined || end === 0)) return true;
    }
    return false;
  });
}

interface Needle {
  bytes: Buffer;
  exact: boolean;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

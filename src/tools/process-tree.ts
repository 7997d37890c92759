// Finds and ends every process a command started, including the ones that left its process
// group. A process group catches ordinary children and grandchildren, but `setsid`, `nohup ...
// &` under a double fork, and daemons start new sessions and get re-parented to init, so
// neither the group nor the parent links lead to them. What they do keep is the environment
// they were started with: every command gets a marker variable, and /proc/PID/environ (the
// environment at exec, readable for our own processes) shows which processes carry it. A
// process that clears its environment is still found while its parent is one of ours. This
// needs no cgroups and no privileges; it is Linux-only, like the rest of the tool.
//
// After each command only the processes it can have started are read: those started since it
// began among the children of agentloop and of the processes that adopt its orphans (see
// orphan-adopters.ts), and their descendants, found through /proc/PID/task/TID/children. So a
// machine running thousands of other processes costs a command nothing more.

import { newChildrenOfAdopters } from "./orphan-adopters.js";
import {
  listPids,
  type ProcessInfo,
  readAllChildren,
  readEnviron,
  readStat,
} from "./proc-files.js";

/** The environment variable that tags every process a command starts. */
export const JOB_MARKER_VARIABLE = "AGENTLOOP_JOB";

/** How long processes get to exit after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 2000;

export interface ProcessSelector {
  /** Process groups whose members are ours. */
  groups: readonly number[];
  /** Marker values whose carriers are ours; a value ending in ":" matches as a prefix. */
  markers: readonly string[];
  /** The variable the markers are values of; default JOB_MARKER_VARIABLE. */
  variable?: string;
  /**
   * When the command began (its first process's start time, see `startTimeOf`). Given, only
   * processes started since are looked at: the command's own tree and the orphans adopted
   * since, so the cost follows the command, not the machine. Left out, every process is read
   * (for the end of a session, when the commands' start times are no longer known).
   */
  startedSince?: number;
}

/** The start time of a live (or not yet reaped) process, for `startedSince`. */
export function startTimeOf(pid: number): number | undefined {
  return readStat(pid)?.startTime;
}

/** PIDs of the live processes the selector picks, and of their descendants. */
export function findProcesses(selector: ProcessSelector): number[] {
  const groups = new Set(selector.groups);
  const needles = selector.markers.map((marker) => ({
    bytes: Buffer.from(`${selector.variable ?? JOB_MARKER_VARIABLE}=${marker}`),
    exact: !marker.endsWith(":"),
  }));
  const isOurs = (info: ProcessInfo) => groups.has(info.group) || carriesMarker(info.pid, needles);
  return selector.startedSince === undefined
    ? scanEveryProcess(isOurs)
    : descendantsOf(newChildrenOfAdopters(selector.startedSince), isOurs);
}

/** The picked processes among `candidates`, and all their live descendants. */
function descendantsOf(candidates: number[], isOurs: (info: ProcessInfo) => boolean): number[] {
  const unchecked = new Set(candidates);
  const ours = new Set<number>();
  const pending = [...candidates];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    if (ours.has(pid) || pid === process.pid) continue;
    const info = readStat(pid);
    // Children of ours are ours too, even if they dropped the marker or changed group.
    if (!info || (unchecked.delete(pid) && !isOurs(info))) continue;
    if (!info.exited) ours.add(pid);
    pending.push(...readAllChildren(pid));
  }
  return [...ours];
}

/** Every process on the machine that is picked, and its descendants, from one pass over /proc. */
function scanEveryProcess(isOurs: (info: ProcessInfo) => boolean): number[] {
  const children = new Map<number, number[]>();
  const found: number[] = [];
  for (const pid of listPids()) {
    const info = readStat(pid);
    if (!info || info.exited) continue;
    const siblings = children.get(info.parent);
    if (siblings) siblings.push(info.pid);
    else children.set(info.parent, [info.pid]);
    if (isOurs(info)) found.push(info.pid);
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
  // Watching the signalled processes is cheap; the search below catches any newcomer.
  while (Date.now() < deadline && terminated.some((pid) => readStat(pid)?.exited === false)) {
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

function carriesMarker(pid: number, needles: readonly Needle[]): boolean {
  if (needles.length === 0) return false;
  const environ = readEnviron(pid);
  if (!environ) return false;
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

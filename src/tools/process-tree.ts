// Finds and ends every process a command started, including the ones that left its process
// group. A process group catches ordinary children and grandchildren, but `setsid`, `nohup ...
// &` under a double fork, and daemons start new sessions and get re-parented to init, so
// neither the group nor the parent links lead to them. What they do keep is the environment
// they were started with: every command gets a marker variable, and the process table (see
// process-table.ts) shows which processes carry it. A process that clears its environment is
// still found while its parent is one of ours. This needs no cgroups and no privileges.

import { procTable } from "./proc-table.js";
import type { MarkerEntry, ProcessTable } from "./process-table.js";
import { psTable } from "./ps-table.js";

/** Set to `ps` to use the `ps` process table where /proc would be used (for tests). */
export const PROCESS_TABLE_VARIABLE = "AGENTLOOP_PROCESS_TABLE";

/** The table of the platform: /proc on Linux, one `ps` snapshot elsewhere (macOS has no /proc). */
export function chooseProcessTable(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
): ProcessTable {
  return platform === "linux" && env[PROCESS_TABLE_VARIABLE] !== "ps" ? procTable : psTable;
}

let chosen: ProcessTable | null = null;

/** Chosen at first use, so that a test's environment is in place by then. */
function table(): ProcessTable {
  chosen ??= chooseProcessTable(process.platform, process.env);
  return chosen;
}

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
   * When the command began (its first process's start time, see `startTimeOf`). Given, the
   * /proc table looks only at processes started since: the command's own tree and the orphans
   * adopted since, so the cost follows the command, not the machine. Left out, every process
   * is read (for the end of a session, when the commands' start times are no longer known).
   */
  startedSince?: number;
}

/** The start time of a live (or not yet reaped) process, for `startedSince`. */
export function startTimeOf(pid: number): number | undefined {
  return table().startTimeOf(pid);
}

/** PIDs of the live processes the selector picks, and of their descendants. */
export function findProcesses(selector: ProcessSelector): number[] {
  const variable = selector.variable ?? JOB_MARKER_VARIABLE;
  const markers: MarkerEntry[] = selector.markers.map((marker) => ({
    bytes: Buffer.from(`${variable}=${marker}`),
    exact: !marker.endsWith(":"),
  }));
  const query = { groups: new Set(selector.groups), markers, startedSince: selector.startedSince };
  return table().find(query);
}

/** See `ProcessTable.shellListingOfMarked`. */
export function shellListingOfMarked(): string {
  return table().shellListingOfMarked;
}

/**
 * Ends the selected processes: SIGTERM to let them clean up, then SIGKILL for whatever is
 * still there after `graceMs`, repeated until none is left (a process may fork while dying).
 */
export async function killProcesses(selector: ProcessSelector, graceMs: number): Promise<void> {
  const terminated = signalAll(selector, "SIGTERM");
  const deadline = Date.now() + graceMs;
  // Watching the signalled processes is cheap; the search below catches any newcomer.
  while (Date.now() < deadline && table().running(terminated).length > 0) {
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

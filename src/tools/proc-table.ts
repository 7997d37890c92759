// The process table of Linux, read from /proc. A process's /proc/PID/environ is the environment
// at exec, readable for our own processes, so it shows who carries a marker.
//
// After each command only the processes it can have started are read: those started since it
// began among the children of agentloop and of the processes that adopt its orphans (see
// orphan-adopters.ts), and their descendants, found through /proc/PID/task/TID/children. So a
// machine running thousands of other processes costs a command nothing more. Without a start
// (the end of a session) every process is read once.

import { newChildrenOfAdopters } from "./orphan-adopters.js";
import {
  listPids,
  type ProcessInfo,
  readAllChildren,
  readEnviron,
  readStat,
} from "./proc-files.js";
import { carriesMarker, type ProcessTable, pickWithDescendants } from "./process-table.js";

export const procTable: ProcessTable = {
  find(query) {
    const isOurs = (info: ProcessInfo) => {
      if (query.groups.has(info.group)) return true;
      if (query.markers.length === 0) return false;
      const environ = readEnviron(info.pid);
      return environ !== null && carriesMarker(environ, query.markers, 0);
    };
    return query.startedSince === undefined
      ? pickWithDescendants(everyProcess(), isOurs)
      : descendantsOf(newChildrenOfAdopters(query.startedSince), isOurs);
  },
  running: (pids) => pids.filter((pid) => readStat(pid)?.exited === false),
  startTimeOf: (pid) => readStat(pid)?.startTime,
  // grep -z reads NUL-separated entries, so ^ anchors at the start of each.
  shellListingOfMarked: `grep -l -z -e "^$1=$2" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3`,
};

function* everyProcess(): Generator<ProcessInfo> {
  for (const pid of listPids()) {
    const info = readStat(pid);
    if (info) yield info;
  }
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

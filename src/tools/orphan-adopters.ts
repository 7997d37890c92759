// Where a command's processes go when their parent exits: Linux hands an orphan to the nearest
// ancestor that made itself a "child subreaper" (a container's init, systemd --user, tini),
// else to init, and to the first live thread of that process, normally its main thread. Which
// ancestors are subreapers /proc does not say, so every ancestor of agentloop counts, and
// agentloop itself, whose children are the commands: a handful of small reads per command.
// Their children that started before the command cannot be its processes; their start times
// are remembered, so each is read once however many commands the session runs.

import { readChildren, readStat } from "./proc-files.js";

interface Adopter {
  pid: number;
  /** Start times of the children seen at the last look. */
  childStarts: Map<number, number>;
}

let adopters: Adopter[] | null = null;

/** agentloop and its ancestors, up to init; looked up once, as they outlive every command. */
function adoptersOfOurOrphans(): Adopter[] {
  if (adopters) return adopters;
  adopters = [];
  for (let pid = process.pid; pid > 0; pid = readStat(pid)?.parent ?? 0) {
    adopters.push({ pid, childStarts: new Map() });
  }
  return adopters;
}

/** Children of agentloop and of the processes that adopt its orphans, started at `since` or later. */
export function newChildrenOfAdopters(since: number): number[] {
  const found: number[] = [];
  for (const adopter of adoptersOfOurOrphans()) {
    const starts = new Map<number, number>();
    for (const pid of readChildren(adopter.pid)) {
      const startTime = adopter.childStarts.get(pid) ?? readStat(pid)?.startTime;
      if (startTime === undefined) continue;
      starts.set(pid, startTime);
      if (startTime >= since) found.push(pid);
    }
    // A PID that left the list may come back as another process: forget what it was.
    adopter.childStarts = starts;
  }
  return found;
}

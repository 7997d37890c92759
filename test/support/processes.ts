// Which processes are still around, for tests that end a batch or a command and check that
// nothing it started is left running.

import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** True while the process runs (a zombie, dead but not yet reaped by its parent, is not). */
export function isAlive(pid: number): boolean {
  if (process.platform !== "linux") {
    // No /proc (macOS): ps prints nothing for a process that is gone.
    const state = spawnSync("ps", ["-o", "stat=", "-p", `${pid}`], { encoding: "utf8" }).stdout;
    return state.trim() !== "" && !state.trim().startsWith("Z");
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2)[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Processes whose working directory is inside `dir`. */
export function processesIn(dir: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

// Which processes are still around, for tests that end a batch and check nothing it started
// is left running.

import { readdirSync, readlinkSync } from "node:fs";

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

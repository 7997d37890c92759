// Unrelated processes that sit on the machine while a benchmark runs: a `sleep` each, in a
// process group of their own that is not the agent's, so that per-command work which grows
// with the number of processes on the machine shows up as a slower turn.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

export interface IdleProcesses {
  /** Ends them all. */
  stop(): void;
}

export async function startIdleProcesses(count: number): Promise<IdleProcesses> {
  const parent = spawn(
    "bash",
    ["-c", `for ((i = 0; i < ${count}; i++)); do sleep 600 & done; wait`],
    {
      detached: true,
      stdio: "ignore",
    },
  );
  const pid = parent.pid as number;
  const stop = () => {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  while (childCount(pid) < count) {
    if (parent.exitCode !== null) {
      stop();
      throw new Error(`Could not start ${count} idle processes.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { stop };
}

function childCount(pid: number): number {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").split(" ").length - 1;
  } catch {
    return 0;
  }
}

// Ends a session's processes when agentloop itself is killed with SIGKILL and cannot. In the
// sandbox on Linux, bubblewrap's PID namespace and --die-with-parent do that; in `ask` and
// `yolo`, and under Seatbelt, which has neither, this does. The reaper is a small shell,
// started once per session outside any sandbox, in a session of its own (so that Ctrl-C at the
// terminal, or a batch killing agentloop's process group, does not reach it), reading a pipe
// that agentloop holds and never writes to. The pipe closes only when agentloop is gone; the
// reaper then ends every process carrying the session's marker, the way killProcesses does:
// SIGTERM, a grace period, then SIGKILL until none is left. A process that cleared its
// environment is out of its reach (agentloop's own sweep finds it through its parent).

import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { KILL_GRACE_MS, shellListingOfMarked } from "./process-tree.js";

export interface Reaper {
  /** Ends the reaper without a sweep: the session has ended its processes itself. */
  stop(): void;
}

/** Starts the reaper of the processes whose `variable` starts with `prefix`. */
export function startReaper(variable: string, prefix: string): Reaper {
  const script = [
    // Returns at end of input: agentloop is gone.
    "read -r _",
    `marked() { ${shellListingOfMarked()}; }`,
    'pids=$(marked "$1" "$2")',
    '[ -n "$pids" ] || exit 0',
    "kill -TERM $pids 2>/dev/null",
    `sleep ${KILL_GRACE_MS / 1000}`,
    "for round in 1 2 3 4 5 6 7 8 9 10; do",
    '  pids=$(marked "$1" "$2")',
    '  [ -n "$pids" ] || exit 0',
    "  kill -KILL $pids 2>/dev/null",
    "  sleep 0.1",
    "done",
  ].join("\n");
  // A plain environment: the reaper carries no marker, so it never finds itself.
  const child = spawn("/bin/sh", ["-c", script, "agentloop-reaper", variable, prefix], {
    detached: true,
    // Out of the workspace: a reaper still at work must not hold the directory of a task.
    cwd: "/",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
    stdio: ["pipe", "ignore", "ignore"],
  });
  child.on("error", () => {
    // /bin/sh missing: the session goes on; only a SIGKILL of agentloop leaves processes.
  });
  const pipe = child.stdin as Writable & { unref?(): void };
  pipe.on("error", () => {});
  // Neither may keep agentloop running.
  pipe.unref?.();
  child.unref();
  return { stop: () => child.kill("SIGKILL") };
}

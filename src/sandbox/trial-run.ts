// Starting a sandbox once with `true`, before the first command, to prove it works here.

import { spawn } from "node:child_process";

const TRIAL_TIMEOUT_MS = 10_000;

/** Null if `argv` ran and exited 0; else why not, in a few words ("bwrap is not installed"). */
export function tryStarting(argv: string[]): Promise<string | null> {
  const [program, ...args] = argv as [string, ...string[]];
  return new Promise((done) => {
    const child = spawn(program, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), TRIAL_TIMEOUT_MS);
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      done(error.code === "ENOENT" ? `${program} is not installed` : error.message);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) done(null);
      else
        done(
          stderr.trim().split("\n")[0] || `${program} ended with ${signal ?? `exit code ${code}`}`,
        );
    });
  });
}

// Runs one hook's command: `bash -c` in the workspace, in a process group of its own and outside
// the tool sandbox (a hook is the user's own code), with its JSON input on stdin and then EOF.
// At its timeout, or when the user presses Ctrl-C, the whole group is killed at once, so a hook
// and everything it started end together and never hold up the loop.

import { spawn } from "node:child_process";

/** What a hook may print that is kept; the rest is dropped (a hook's output is a short answer). */
const OUTPUT_LIMIT = 64 * 1024;
/** After the hook exits, how long children that still hold its output may keep it open. */
const PIPE_GRACE_MS = 1000;

export interface CommandRun {
  /** Null when it was killed or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Why it did not finish on its own: timed out, interrupted, or could not start. */
  failure?: string;
}

export interface CommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  input: string;
  timeoutSeconds: number;
  signal: AbortSignal;
}

export function runHookCommand(command: string, options: CommandOptions): Promise<CommandRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    // Without --norc, bash reads ~/.bashrc when its stdin is a socket, as Node's pipes are.
    const child = spawn("bash", ["--noprofile", "--norc", "-c", command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const output = { stdout: "", stderr: "" };
    for (const name of ["stdout", "stderr"] as const) {
      child[name].setEncoding("utf8");
      child[name].on("data", (chunk: string) => {
        output[name] += chunk.slice(0, OUTPUT_LIMIT - output[name].length);
      });
    }
    let failure: string | undefined;
    let exitCode: number | null = null;
    let graceTimer: NodeJS.Timeout | undefined;
    const killGroup = (why: string) => {
      failure ??= why;
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group has ended already.
      }
    };
    const seconds = options.timeoutSeconds;
    const timer = setTimeout(
      () => killGroup(`timed out after ${seconds} s and was killed with its children`),
      seconds * 1000,
    );
    const interrupt = () => killGroup("interrupted by the user");
    if (options.signal.aborted) interrupt();
    options.signal.addEventListener("abort", interrupt, { once: true });

    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal.removeEventListener("abort", interrupt);
      child.stdout.destroy();
      child.stderr.destroy();
      const run = { exitCode: failure ? null : exitCode, ...output };
      resolve({ ...run, durationMs: performance.now() - started, failure });
    };
    child.on("error", (error) => {
      failure ??= `could not start: ${error.message}`;
      finish();
    });
    child.on("exit", (code) => {
      exitCode = code;
      // A child it left in the background may hold stdout open: wait for it only a moment.
      graceTimer = setTimeout(finish, PIPE_GRACE_MS);
    });
    child.on("close", finish);
    // A hook that never reads its input must not make writing it fail.
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input);
  });
}

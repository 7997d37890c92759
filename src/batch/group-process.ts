// Runs one program of an attempt (the setup command, the agent) in a process group of its own,
// so that a timeout or a cancel ends it and everything it started, and nothing of one task can
// signal another's. SIGTERM first, so the agent can stop its tools and close its session file;
// SIGKILL to the whole group when the grace is over, and once more when it exits, for stragglers.

import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { createInterface } from "node:readline";

/** How long the agent gets after SIGTERM to end its tools and write its last lines. */
export const STOP_GRACE_MS = 5000;

export interface GroupRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why it was stopped from outside, if it was. */
  stopped: "timeout" | "cancelled" | null;
}

export interface GroupProcessOptions {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** stdout, and stderr unless `stderrFile` is given, go to this file. */
  stdoutFile: string;
  stderrFile?: string;
  /** Each line of stdout, as it arrives. */
  onLine?: (line: string) => void;
  /** performance.now() at which it is stopped as timed out. */
  deadline: number;
  signal?: AbortSignal;
}

export function runInGroup(options: GroupProcessOptions): Promise<GroupRun> {
  const [program, ...args] = options.argv as [string, ...string[]];
  const stdout = createWriteStream(options.stdoutFile, { flags: "a" });
  const stderr = options.stderrFile
    ? createWriteStream(options.stderrFile, { flags: "a" })
    : stdout;
  return new Promise((resolve) => {
    let stopped: GroupRun["stopped"] = null;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const group = child.pid;
    const signalGroup = (signal: NodeJS.Signals) => {
      if (group === undefined) return;
      try {
        process.kill(-group, signal);
      } catch {
        // The group is gone already.
      }
    };
    const stop = (why: "timeout" | "cancelled") => {
      if (stopped) return;
      stopped = why;
      signalGroup("SIGTERM");
      killTimer = setTimeout(() => signalGroup("SIGKILL"), STOP_GRACE_MS);
    };
    const timeout = setTimeout(
      () => stop("timeout"),
      Math.max(0, options.deadline - performance.now()),
    );
    const cancel = () => stop("cancelled");
    if (options.signal?.aborted) cancel();
    options.signal?.addEventListener("abort", cancel);

    child.stdout.pipe(stdout, { end: false });
    child.stderr.pipe(stderr, { end: false });
    if (options.onLine) createInterface({ input: child.stdout }).on("line", options.onLine);

    let finished = false;
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timeout);
      clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", cancel);
      // Whatever the program left in its group goes with it.
      signalGroup("SIGKILL");
      const closed = (stream: NodeJS.WritableStream) =>
        new Promise<void>((done) => stream.end(done));
      Promise.all([closed(stdout), stderr === stdout ? undefined : closed(stderr)]).then(() =>
        resolve({ exitCode, signal, stopped }),
      );
    };
    child.on("error", (error) => {
      stderr.write(`could not start ${program}: ${error.message}\n`);
      finish(null, null);
    });
    child.on("close", finish);
    // A process that left the group may still hold the pipes; the program's end is what counts.
    child.on("exit", (exitCode, signal) => {
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(exitCode, signal);
      }, 1000).unref();
    });
  });
}

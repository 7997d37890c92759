// Runs one process the way an agent needs it run: with no terminal and no input, in a process
// group of its own, finished as soon as the process itself exits (not when every pipe has
// closed, which a background child can put off for ever), and killed with everything it
// started when it runs out of time or the user interrupts.

import { type ChildProcessByStdio, spawn } from "node:child_process";
import { once } from "node:events";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import type { OutputSource } from "./output-capture.js";
import {
  findProcesses,
  KILL_GRACE_MS,
  killProcesses,
  type ProcessSelector,
  startTimeOf,
} from "./process-tree.js";

export type ShellEnding =
  | { kind: "exited"; code: number }
  | { kind: "killed"; signal: NodeJS.Signals }
  | { kind: "timed-out" }
  | { kind: "interrupted" }
  | { kind: "failed-to-start"; message: string };

export interface ShellProcessOptions {
  argv: string[];
  cwd: string;
  /** Must set the marker variable to `marker`: that is how escaped descendants are found. */
  env: Record<string, string>;
  marker: string;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput(chunk: Buffer, source: OutputSource): void;
}

export interface ShellProcessResult {
  ending: ShellEnding;
  /** Processes the command started that are still running (a server started with `&`). */
  backgroundPids: number[];
}

/** How long output may still arrive after the process exits. */
const DRAIN_MS = 100;
/** How long to wait for the exit of a process that survived SIGKILL (stuck in the kernel). */
const EXIT_AFTER_KILL_MS = 500;

export async function runShellProcess(options: ShellProcessOptions): Promise<ShellProcessResult> {
  const [file, ...args] = options.argv;
  if (file === undefined) throw new Error("runShellProcess needs a program to run");
  // detached: the child calls setsid(), so it leads a new process group and session, and
  // has no controlling terminal: opening /dev/tty fails at once instead of prompting.
  let child: ChildProcessByStdio<null, Readable, Readable>;
  try {
    child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    // Arguments Node refuses outright, such as a command containing a NUL character.
    const message = (error as Error).message;
    return { ending: { kind: "failed-to-start", message }, backgroundPids: [] };
  }
  let capturing = true;
  const streams: [Readable, OutputSource][] = [
    [child.stdout, "stdout"],
    [child.stderr, "stderr"],
  ];
  for (const [stream, source] of streams) {
    // After the command returns, output of its background processes is read and dropped, so
    // that they do not die of SIGPIPE or block on a full pipe.
    stream.on("data", (chunk: Buffer) => {
      if (capturing) options.onOutput(chunk, source);
    });
  }

  const exited = new Promise<ShellEnding>((resolve) => {
    child.once("exit", (code, signal) =>
      resolve(signal ? { kind: "killed", signal } : { kind: "exited", code: code ?? 0 }),
    );
    child.once("error", (error) => resolve({ kind: "failed-to-start", message: error.message }));
  });

  // The start time is read before the event loop runs again, so the child is not reaped yet.
  const selector: ProcessSelector = {
    groups: child.pid === undefined ? [] : [child.pid],
    markers: [options.marker],
    startedSince: child.pid === undefined ? undefined : startTimeOf(child.pid),
  };
  let stopReason: "timed-out" | "interrupted" | null = null;
  let markKilled = () => {};
  const killed = new Promise<void>((resolve) => {
    markKilled = resolve;
  });
  const stop = (reason: "timed-out" | "interrupted") => {
    if (stopReason || child.pid === undefined) return;
    stopReason = reason;
    void killProcesses(selector, KILL_GRACE_MS).then(markKilled);
  };
  const timer = setTimeout(() => stop("timed-out"), options.timeoutMs);
  const onAbort = () => stop("interrupted");
  options.signal.addEventListener("abort", onAbort, { once: true });

  // A process stuck in the kernel survives even SIGKILL; once everything was killed, its exit
  // is waited for only briefly, so that the tool still returns.
  await Promise.race([exited, killed.then(() => sleep(EXIT_AFTER_KILL_MS))]);
  clearTimeout(timer);
  options.signal.removeEventListener("abort", onAbort);
  if (stopReason) await killed;
  const ending: ShellEnding = stopReason ? { kind: stopReason } : await exited;

  await drain(streams.map(([stream]) => stream));
  capturing = false;
  // A program that did not start has started nothing either.
  const backgroundPids = stopReason || child.pid === undefined ? [] : findProcesses(selector);
  for (const [stream] of streams) {
    if (backgroundPids.length === 0) stream.destroy();
    // Pipes held by background processes must not keep agentloop itself alive.
    else (stream as Socket).unref?.();
  }
  return { ending, backgroundPids };
}

/** Waits for the streams to end, or `DRAIN_MS`, whichever comes first. */
async function drain(streams: Readable[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = streams.map((stream) =>
    stream.readableEnded || stream.destroyed
      ? Promise.resolve()
      : once(stream, "end").catch(() => {}),
  );
  await Promise.race([
    Promise.all(ended),
    new Promise((resolve) => {
      timer = setTimeout(resolve, DRAIN_MS);
    }),
  ]);
  clearTimeout(timer);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

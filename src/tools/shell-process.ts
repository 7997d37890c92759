// Runs one process the way an agent needs it run: with no terminal and no input, in a process
// group of its own, finished as soon as the process itself exits (not when every pipe has
// closed, which a background child can put off for ever), and killed with everything it
// started when it runs out of time or the user interrupts.

import { type ChildProcess, spawn } from "node:child_process";
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

/** A process started for a command, with the start time `findProcesses` looks from. */
export interface StartedShell {
  child: ChildProcess;
  /** The pipes the command writes its output to. */
  stdout: Readable;
  stderr: Readable;
  startTime: number | undefined;
  /**
   * For a process started before its command was known (warm-shell.ts): gives it the command,
   * once its output is being read, and says whether it took it (false: it had ended).
   */
  begin?(): Promise<boolean>;
}

export interface ShellProcessOptions {
  /**
   * The argv to spawn, built only when no process was started already for the command (a
   * sandbox's argv takes about 0.1 ms of file checks to build).
   */
  argv(): string[];
  cwd: string;
  /** Must set the marker variable to `marker`: that is how escaped descendants are found. */
  env: Record<string, string>;
  marker: string;
  /** Started already for this command (a warm shell, see warm-shell.ts): argv is not spawned. */
  started?: StartedShell;
  /** Ends the processes the command leaves running instead of reporting them. */
  endLeftovers: boolean;
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
  let started: StartedShell;
  try {
    started = options.started ?? spawnShell(options.argv(), options.cwd, options.env);
  } catch (error) {
    // Arguments Node refuses outright, such as a command containing a NUL character.
    const message = (error as Error).message;
    return { ending: { kind: "failed-to-start", message }, backgroundPids: [] };
  }
  const { child } = started;
  let capturing = true;
  const streams: [Readable, OutputSource][] = [
    [started.stdout, "stdout"],
    [started.stderr, "stderr"],
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
  if (started.begin && !(await started.begin())) {
    // The warm shell ended before it read the command: the command has not run at all.
    for (const [stream] of streams) stream.destroy();
    return runShellProcess({ ...options, started: undefined });
  }

  const selector: ProcessSelector = {
    groups: child.pid === undefined ? [] : [child.pid],
    markers: [options.marker],
    startedSince: started.startTime,
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
  // Aborted while a warm shell was being handed the command.
  if (options.signal.aborted) onAbort();

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
  let backgroundPids = stopReason || child.pid === undefined ? [] : findProcesses(selector);
  if (options.endLeftovers && backgroundPids.length > 0) {
    await killProcesses(selector, KILL_GRACE_MS);
    backgroundPids = [];
  }
  for (const [stream] of streams) {
    if (backgroundPids.length === 0) stream.destroy();
    // Pipes held by background processes must not keep agentloop itself alive.
    else (stream as Socket).unref?.();
  }
  return { ending, backgroundPids };
}

/**
 * Spawns argv in a process group and session of its own (`detached`: it calls setsid(), so it
 * has no controlling terminal and opening /dev/tty fails at once instead of prompting), with
 * no input and its output piped. Throws for arguments Node refuses outright.
 */
export function spawnShell(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  stdio: ("ignore" | "pipe")[] = ["ignore", "pipe", "pipe"],
): StartedShell {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error("spawnShell needs a program to run");
  const child = spawn(file, args, { cwd, env, detached: true, stdio });
  return {
    child,
    stdout: child.stdout as Readable,
    stderr: child.stderr as Readable,
    // Read before the event loop runs again, so the child is not reaped yet.
    startTime: child.pid === undefined ? undefined : startTimeOf(child.pid),
  };
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

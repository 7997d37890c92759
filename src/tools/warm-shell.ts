// A shell started before its command is known. Forking agentloop (a Node process of about
// 90 MB) blocks it for about 2 ms, and bubblewrap needs a few more to build the sandbox; done
// while the model is still answering, neither delays the turn. The shell waits on its input
// for the command, then replaces itself with `bash -c COMMAND` (exec, not a child), so the
// command runs as if spawned directly: the same process, group, pipes, environment, working
// directory and exit status, and nothing of the waiting shell is left in it.

import type { Readable, Writable } from "node:stream";
import { type StartedShell, spawnShell } from "./shell-process.js";
import type { PreparedCall, ShellSession } from "./shell-session.js";

/**
 * Commands are read a byte at a time from the pipe (bash cannot read ahead of a delimiter
 * there), about 0.2 ms per KB; a longer command is spawned the ordinary way.
 */
export const WARM_COMMAND_MAX_BYTES = 4096;

/** How long a session's end waits for the waiting shell to exit before the sweep ends it. */
const EXIT_WAIT_MS = 1000;

/**
 * What the waiting shell runs. It starts with its errors going nowhere (descriptor 2), so
 * that bash's own warnings, such as one about a missing locale, come from the command's shell
 * alone. On descriptor 3 it says it is ready, then that it has read the command (up to a NUL;
 * end of input means it was not needed). Then it sends errors to the command's stderr pipe
 * (descriptor 4), closes what the command must not inherit, gives it no input, and sets
 * $BASH_ENV (the startup file, which must run in the command's shell, not in this one).
 */
const WAITER_SCRIPT = [
  "printf R >&3",
  "IFS= read -r -d '' command || exit 0",
  "printf G >&3",
  "exec 2>&4 3>&- 4>&- </dev/null",
  'export BASH_ENV="$1"',
  'exec bash --noprofile --norc -c "$command"',
].join("\n");

/** The waiting shell's descriptors: input, output, errors before the command, reports, errors. */
const WAITER_STDIO: ("ignore" | "pipe")[] = ["pipe", "pipe", "ignore", "pipe", "pipe"];

export interface WarmShell extends StartedShell {
  /** The argv spawned: a later command may use this shell only if it would spawn the same. */
  argv: string[];
  /** True once the shell waits for its command; false if it ended (or failed) first. */
  ready: Promise<boolean>;
  /** True once it has read its command; false if it ended without. */
  received: Promise<boolean>;
  /** Settles when the process has exited. */
  exited: Promise<unknown>;
}

/**
 * Turns the argv of a command into the argv spawned (the sandbox). `command` is the command
 * run, which may choose the sandbox; a warm shell is started before it is known, without one.
 */
export type Wrap = (argv: string[], context: { cwd: string; command?: string }) => string[];

/** A session's warm shell: at most one waits, for the session's next command. */
export interface WarmShells {
  /**
   * The prepared call and waiting process for `command`, or null if there is none it can
   * use (then the caller prepares a call and spawns as usual).
   */
  take(command: string): Promise<{ call: PreparedCall; started: StartedShell } | null>;
  /** Starts a shell for the next command, once the current turn has moved on. */
  warmUp(): void;
  /** Ends the waiting shell, if any, and starts no more; settles once it has exited. */
  dispose(): Promise<void>;
}

export function createWarmShells(session: ShellSession, wrap: Wrap | undefined): WarmShells {
  let waiting: { call: PreparedCall; shell: WarmShell } | null = null;
  let disposed = false;
  const argvFor = (call: PreparedCall, command?: string) =>
    waiterArgv(call.env, (argv) => (wrap ? wrap(argv, { cwd: call.cwd, command }) : argv));
  const discard = ({ call, shell }: { call: PreparedCall; shell: WarmShell }) => {
    // End of input: the waiting shell exits on its own, having started nothing.
    (shell.child.stdin as Writable).end();
    for (const stream of shell.child.stdio.slice(1)) (stream as Readable | null)?.destroy();
    session.release(call);
  };
  return {
    async take(command) {
      const current = waiting;
      waiting = null;
      if (!current) return null;
      const { call, shell } = current;
      // The directory or the sandbox (the mode's, or the one this command runs in) may differ.
      const usable =
        fitsWarmShell(command) &&
        session.isCurrent(call) &&
        argvFor(call, command).join("\0") === shell.argv.join("\0");
      if (usable && (await isReady(shell))) {
        const begin = () => handOver(shell, command);
        return { call, started: { ...shell, begin } };
      }
      discard(current);
      return null;
    },
    warmUp() {
      // After the tool result is handed back, so that the fork does not delay the next request.
      setImmediate(() => {
        if (waiting || disposed) return;
        const call = session.prepare();
        try {
          waiting = { call, shell: startWarmShell(argvFor(call), call.cwd, call.env) };
        } catch {
          session.release(call);
        }
      });
    },
    async dispose() {
      disposed = true;
      const current = waiting;
      waiting = null;
      if (!current) return;
      // It exits as soon as its input ends: waiting for that (a few ms, a little more in the
      // sandbox) spares the session's sweep for leftover processes a round of SIGTERM and polling.
      const exited = current.shell.exited;
      current.shell.child.ref();
      discard(current);
      const gaveUp = new Promise((resolve) => setTimeout(resolve, EXIT_WAIT_MS).unref());
      await Promise.race([exited, gaveUp]);
    },
  };
}

/** The argv of a shell waiting for a command to run with `env`, wrapped by the sandbox if any. */
function waiterArgv(env: Record<string, string>, wrap: (argv: string[]) => string[]): string[] {
  return wrap(["bash", "--noprofile", "--norc", "-c", WAITER_SCRIPT, "bash", env.BASH_ENV ?? ""]);
}

/** Starts a shell that waits for a command to run with `env` in `cwd`. Throws like spawn. */
function startWarmShell(argv: string[], cwd: string, env: Record<string, string>): WarmShell {
  const { BASH_ENV: _startupFile, ...waiterEnv } = env;
  const { child, startTime } = spawnShell(argv, cwd, waiterEnv, WAITER_STDIO);
  (child.stdin as Writable).on("error", () => {
    // It ended before reading its input: `received` says so.
  });
  const reports = child.stdio[3] as Readable;
  let said = "";
  const ready = new Promise<boolean>((resolve) => {
    reports.on("data", (chunk: Buffer) => {
      said += chunk.toString("latin1");
      resolve(true);
    });
    child.once("exit", () => resolve(false));
    child.once("error", () => resolve(false));
  });
  const exited = new Promise((resolve) => {
    child.once("exit", resolve);
    child.once("error", resolve);
  });
  // The report pipe closes when the shell becomes the command, or ends.
  const received = new Promise<boolean>((resolve) => {
    reports.once("close", () => resolve(said.includes("G")));
  });
  // Waiting, it must not keep agentloop running; if agentloop ends, its input closes and it exits.
  for (const handle of [child, ...child.stdio]) (handle as Refable | null)?.unref?.();
  const stdout = child.stdio[1] as Readable;
  const stderr = child.stdio[4] as Readable;
  return { child, stdout, stderr, startTime, argv, ready, received, exited };
}

/** Whether the shell waits for its command; from now on, agentloop waits for it in turn. */
async function isReady(warm: WarmShell): Promise<boolean> {
  const { child } = warm;
  for (const handle of [child, ...child.stdio]) (handle as Refable | null)?.ref?.();
  return warm.ready;
}

/** Hands `command` to the waiting shell; false if it ended before it read the command. */
function handOver(warm: WarmShell, command: string): Promise<boolean> {
  (warm.child.stdin as Writable).end(`${command}\0`);
  return warm.received;
}

interface Refable {
  ref?(): void;
  unref?(): void;
}

/** Whether `command` can go through a warm shell. */
function fitsWarmShell(command: string): boolean {
  return !command.includes("\0") && Buffer.byteLength(command) <= WARM_COMMAND_MAX_BYTES;
}

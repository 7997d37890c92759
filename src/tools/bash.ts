// The bash tool: runs one shell command in the session's working directory and reports what it
// printed and how it ended. Every command ends (timeout, interrupt), leaves nothing running
// after the session, cannot wait for input, and sends the model bounded, readable text.

import { constants } from "node:os";
import { count, plural } from "../core/wording.js";
import {
  type CapturedOutput,
  describeSaved,
  OutputCapture,
  type OutputSource,
  showCut,
} from "./output-capture.js";
import { runShellProcess, type ShellEnding } from "./shell-process.js";
import { type PreparedCall, ShellSession } from "./shell-session.js";
import type { Tool, ToolOutput } from "./tool.js";
import { createWarmShells, type WarmShells, type Wrap } from "./warm-shell.js";

export type BashInput = {
  command: string;
  timeout?: number;
  /** Start the command as a background task and return at once (see StartBackground). */
  run_in_background?: boolean;
};

/** A command to run as a background task, prepared like any other call. */
export interface BackgroundRun {
  command: string;
  timeoutSeconds: number;
  /** Runs the command to its end; aborting `signal` ends it and everything it started. */
  run(
    onOutput: (chunk: Buffer, source: OutputSource) => void,
    signal: AbortSignal,
  ): Promise<ShellEnding>;
}

/**
 * Takes a command to run in the background (src/background/ keeps the tasks) and returns at
 * once what the model is told: the task's id and output file, or why it was refused.
 */
export type StartBackground = (run: BackgroundRun) => ToolOutput;

export interface BashOptions {
  /** The workspace root: the first working directory, and the fallback if one disappears. */
  cwd: string;
  /** Characters of output sent back to the model; the middle is cut beyond this. */
  maxOutputChars?: number;
  /** UTF-8 bytes of output sent back to the model, so other scripts cost no more than ASCII. */
  maxOutputBytes?: number;
  /** The environment commands start from (made non-interactive, secrets removed); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Variables to keep from commands besides the agent's own API keys. */
  secretNames?: readonly string[];
  /**
   * Turns `["bash", "--noprofile", "--norc", "-c", command]` into the argv actually spawned
   * (a sandbox). The wrapper must keep the environment and let the command write to
   * `tempDir` at the same path: the directory tracking uses a file there.
   */
  wrap?: Wrap;
  /**
   * Ends what a command leaves running as soon as its shell exits, for a sandbox that cannot
   * (Seatbelt: no PID namespace), so that nothing runs outside a command's own time there.
   */
  endLeftovers?: boolean;
  /** Where the tool keeps its files (full outputs, the working-directory record); default os.tmpdir(). */
  tempDir?: string;
  /** Applied to the text sent to the model (e.g. to hide secrets a command printed). */
  redact?: (text: string) => string;
  /** Offers `run_in_background`; without it, every command runs in the foreground. */
  startBackground?: StartBackground;
}

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const MAX_TIMEOUT_SECONDS = 600;
export const DEFAULT_BACKGROUND_TIMEOUT_SECONDS = 30 * 60;
export const MAX_BACKGROUND_TIMEOUT_SECONDS = 2 * 60 * 60;
const DEFAULT_MAX_OUTPUT_CHARS = 50_000;
const DEFAULT_MAX_OUTPUT_BYTES = 50_000;

export function createBashTool(options: BashOptions): Tool<BashInput> {
  const session = new ShellSession({
    root: options.cwd,
    env: options.env,
    secretNames: options.secretNames,
    tempParent: options.tempDir,
  });
  const warm = createWarmShells(session, options.wrap);
  return {
    name: "bash",
    description:
      "Run a bash command and return its output (stdout and stderr together) and exit code. " +
      "The working directory carries over between calls, so `cd` works as in a terminal. " +
      "Commands get no input and no terminal: pass everything as arguments and use non-interactive flags. " +
      "A command and everything it started are killed at its timeout. " +
      "Processes left in the background (`server > log 2>&1 &`) keep running until the session ends. " +
      "Long output is cut in the middle; the full output is saved to a file named in the result.",
    inputSchema: {
      type: "object",
      properties: {
        command: { type: "string", description: "The command to run." },
        timeout: {
          type: "number",
          description: `Seconds before the command is killed (default ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS}).`,
        },
        ...(options.startBackground ? { run_in_background: backgroundProperty } : {}),
      },
      required: ["command"],
    },
    run: async (input, context) =>
      input.run_in_background && options.startBackground
        ? startInBackground(input, session, options, options.startBackground)
        : runBash(input, session, options, context.signal, warm),
    dispose: async () => {
      await warm.dispose();
      await session.dispose();
    },
  };
}

const backgroundProperty = {
  type: "boolean",
  description:
    "Run it as a background task (a dev server, a watch build): returns its id and output file at once; you are told when it ends " +
    `(timeout ${DEFAULT_BACKGROUND_TIMEOUT_SECONDS / 60} min by default, at most ${MAX_BACKGROUND_TIMEOUT_SECONDS / 3600} h). Stop it with task_stop.`,
};

/** The timeout asked for, or null when it is not a positive number of seconds. */
function timeoutOf(input: BashInput, byDefault: number, most: number): number | null {
  const timeout = input.timeout ?? byDefault;
  return timeout > 0 ? Math.min(timeout, most) : null;
}

const BAD_TIMEOUT: ToolOutput = {
  content: "The timeout must be a positive number of seconds.",
  isError: true,
};

/** The argv of a prepared call, inside the sandbox when there is one. */
function shellArgv(command: string, call: PreparedCall, options: BashOptions): () => string[] {
  const argv = ["bash", "--noprofile", "--norc", "-c", command];
  return () => (options.wrap ? options.wrap(argv, { cwd: call.cwd, command }) : argv);
}

/**
 * Hands the command to the background part. It is prepared only when the task starts (a
 * refused one takes nothing), with the session's directory, environment, marker and sandbox
 * like any call, but its `cd` does not carry over: the session does not wait for it.
 */
function startInBackground(
  input: BashInput,
  session: ShellSession,
  options: BashOptions,
  start: StartBackground,
): ToolOutput {
  const timeoutSeconds = timeoutOf(
    input,
    DEFAULT_BACKGROUND_TIMEOUT_SECONDS,
    MAX_BACKGROUND_TIMEOUT_SECONDS,
  );
  if (timeoutSeconds === null) return BAD_TIMEOUT;
  return start({
    command: input.command,
    timeoutSeconds,
    async run(onOutput, signal) {
      const call = session.prepare();
      try {
        const { ending } = await runShellProcess({
          argv: shellArgv(input.command, call, options),
          cwd: call.cwd,
          env: call.env,
          marker: call.marker,
          endLeftovers: options.endLeftovers ?? false,
          timeoutMs: timeoutSeconds * 1000,
          signal,
          onOutput,
        });
        return ending;
      } finally {
        session.release(call);
      }
    },
  });
}

export async function runBash(
  input: BashInput,
  session: ShellSession,
  options: BashOptions,
  signal: AbortSignal,
  warm?: WarmShells,
): Promise<ToolOutput> {
  const redact = options.redact ?? ((text: string) => text);
  const timeoutSeconds = timeoutOf(input, DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS);
  if (timeoutSeconds === null) return BAD_TIMEOUT;
  if (signal.aborted) return { content: "[interrupted by the user; not run]", isError: true };

  const prestarted = await warm?.take(input.command);
  const call = prestarted?.call ?? session.prepare();
  const capture = new OutputCapture({
    maxChars: options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
    maxBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    fullOutputPath: call.fullOutputPath,
  });
  // @step tool.bash: The command runs in bash, in the session's directory and sandbox.
  const { ending, backgroundPids } = await runShellProcess({
    argv: shellArgv(input.command, call, options),
    cwd: call.cwd,
    env: call.env,
    marker: call.marker,
    started: prestarted?.started,
    endLeftovers: options.endLeftovers ?? false,
    timeoutMs: timeoutSeconds * 1000,
    signal,
    onOutput: (chunk, source) => capture.write(chunk, source),
  });
  const newDirectory = session.finish(call);
  warm?.warmUp();

  const lines = [describeOutput(capture.finish()), describeEnding(ending, timeoutSeconds)];
  if (call.lostDirectory) {
    lines.unshift(`[${call.lostDirectory} no longer exists; the command ran in ${call.cwd}]`);
  }
  if (backgroundPids.length > 0) {
    lines.push(
      `[still running in the background: PID ${backgroundPids.join(", ")}; their later output is discarded, and they are ended when the session ends]`,
    );
  }
  if (newDirectory) lines.push(`[the working directory is now ${newDirectory}]`);
  return { content: redact(lines.join("\n")), isError: isFailure(ending) };
}

function describeOutput(output: CapturedOutput): string {
  switch (output.kind) {
    case "text":
      return output.text || "(no output)";
    case "binary":
      return `(binary output, ${count(output.totalBytes)} bytes, ${describeSaved(output.saved)})`;
    case "cut": {
      const size = `${count(output.totalBytes)} bytes, ${plural(output.lines, "line")}`;
      return showCut(output.head, output.tail, size, output.saved);
    }
  }
}

function describeEnding(ending: ShellEnding, timeoutSeconds: number): string {
  switch (ending.kind) {
    case "exited":
      return `[exit code ${ending.code}${signalHint(ending.code)}]`;
    case "killed":
      return `[killed by signal ${ending.signal}]`;
    case "timed-out":
      return `[timed out after ${timeoutSeconds} s; the command and everything it started were killed]`;
    case "interrupted":
      return "[interrupted by the user; the command and everything it started were killed]";
    case "failed-to-start":
      return `[the command could not be started: ${ending.message}]`;
  }
}

/** Shells report a child killed by signal N as exit code 128 + N. */
function signalHint(code: number): string {
  const name = Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
  return code > 128 && name ? ` (a process was killed by ${name})` : "";
}

function isFailure(ending: ShellEnding): boolean {
  return ending.kind !== "exited" || ending.code !== 0;
}

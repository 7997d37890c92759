// The built CLI (dist/cli.js) in a real pseudo-terminal, through pty-run.py, driven as a person
// at a terminal drives it: a test types keys, waits for what the screen shows, and reads how the
// CLI exited. The screen is everything the terminal showed, escape sequences included.

import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { onTestFinished } from "vitest";
import { CLI } from "./cli-harness.js";

const PTY_RUN = resolve(import.meta.dirname, "pty-run.py");
const WAIT_MS = 15_000;
/** The REPL's prompt. */
const PROMPT = /› /;

export interface TerminalOptions {
  /** The CLI's whole environment. */
  env: Record<string, string>;
  cwd: string;
  /** The CLI's arguments; none starts the REPL. */
  args?: string[];
  /** The terminal's width; left out, the terminal has no size, as a bare pseudo-terminal. */
  columns?: number;
  /** What runs instead of the built CLI, as its command and first arguments. */
  program?: string[];
}

export interface Terminal {
  /** All the terminal has shown so far. */
  output(): string;
  /** Sends keys as typed: "\r" is Enter, "\x03" Ctrl-C. */
  type(keys: string): void;
  /**
   * Waits until the screen shows `pattern` after its first `since` characters (all of it by
   * default). Fails, showing the screen, after 15 s, or as soon as the CLI has ended without
   * showing it.
   */
  waitFor(pattern: RegExp, since?: number): Promise<void>;
  /**
   * Types `keys` and waits for the screen to show `shows` after them; returns what the screen
   * showed from the moment they were typed.
   */
  press(keys: string, shows: RegExp): Promise<string>;
  /** Types `line` and Enter at the REPL's prompt, like `press`, until `shows` and the next prompt. */
  enter(line: string, shows?: RegExp): Promise<string>;
  /** Types `exit` at the REPL's prompt; resolves like `exited`. */
  exit(): Promise<number | null>;
  /** The CLI's exit code once it has ended (128 + the signal's number if a signal ended it). */
  exited: Promise<number | null>;
}

export const TERMINAL_ROWS = 24;

export function openTerminal(options: TerminalOptions): Terminal {
  const { env, cwd, args = [], columns, program = [process.execPath, CLI] } = options;
  const size = columns === undefined ? [] : ["--size", `${columns}x${TERMINAL_ROWS}`];
  const child = spawn("python3", [PTY_RUN, ...size, ...program, ...args], { cwd, env });
  let screen = "";
  let ended: { code: number | null } | undefined;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
  const exited = new Promise<number | null>((done) =>
    child.on("close", (code: number | null) => {
      ended = { code };
      done(code);
    }),
  );
  // A test that failed half-way leaves no CLI waiting at a prompt.
  onTestFinished(() => {
    if (!ended) child.kill();
  });

  const type = (keys: string) => {
    child.stdin.write(keys);
  };
  async function waitFor(pattern: RegExp, since = 0) {
    const deadline = Date.now() + WAIT_MS;
    while (!pattern.test(screen.slice(since))) {
      // "close" comes after the last output, so what the screen shows now is all it will show.
      if (ended || Date.now() > deadline) {
        const why = ended
          ? `the CLI ended (exit code ${ended.code}) without showing`
          : `timed out after ${WAIT_MS / 1000} s waiting for`;
        const where = since > 0 ? ` after its first ${since} characters` : "";
        throw new Error(`${why} ${pattern} on the screen${where}; the screen:\n${visible(screen)}`);
      }
      await new Promise((done) => setTimeout(done, 20));
    }
  }
  async function press(keys: string, shows: RegExp) {
    const since = screen.length;
    type(keys);
    await waitFor(shows, since);
    return screen.slice(since);
  }
  return {
    output: () => screen,
    type,
    waitFor,
    press,
    enter: (line, shows = /[\s\S]*/) =>
      press(`${line}\r`, new RegExp(`${shows.source}[\\s\\S]*${PROMPT.source}`, shows.flags)),
    exit() {
      type("exit\r");
      return exited;
    },
    exited,
  };
}

/** Starts the REPL in a terminal and waits for its first prompt. */
export async function openRepl(options: TerminalOptions): Promise<Terminal> {
  const terminal = openTerminal(options);
  await terminal.waitFor(PROMPT);
  return terminal;
}

/**
 * The screen as an error message can show it: "\r\n" as "\n", and every other control character
 * but "\n" and "\t" (the ESC of an escape sequence, a lone "\r") written out, as "\x1b".
 */
function visible(screen: string): string {
  return screen
    .replaceAll("\r\n", "\n")
    .replace(/[^\n\t\P{Cc}]/gu, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

// Turns what readline reads into whole prompts. Readline ends a line at every newline, also
// at each one inside a paste. With bracketed paste on, the terminal wraps a paste in
// ESC[200~ ... ESC[201~, which readline's key decoder reports as the keys "paste-start" and
// "paste-end": the lines read between them are kept, and the prompt is sent when Enter is
// pressed after the paste. A typed line ending in a backslash goes on on the next line.

import type { Interface } from "node:readline";
import type { InputHistory } from "./input-history.js";

export const PROMPT = "› ";
export const CONTINUATION = "… ";
const BRACKETED_PASTE_ON = "\x1b[?2004h";
const BRACKETED_PASTE_OFF = "\x1b[?2004l";

export interface PromptInputOptions {
  readline: Interface;
  /** The stream readline reads, whose keypress events mark a paste. */
  input: NodeJS.ReadableStream;
  output: { write(text: string): unknown; isTTY?: boolean };
  history: InputHistory;
  /** Hears each whole prompt, newlines included, once `ask` has been called for it. */
  onPrompt: (text: string) => void;
  /** Hears Shift-Tab pressed at the prompt (Claude Code's key for changing the mode). */
  onShiftTab?: () => void;
}

export interface PromptInput {
  /** Shows the prompt; the next whole prompt goes to `onPrompt`. */
  ask(): void;
  /**
   * Ctrl-C at the prompt: forgets what is being typed (the line and the lines before it).
   * False when nothing was, or when no prompt is being asked for.
   */
  clear(): boolean;
  /** True while the person has typed part of a prompt: nothing may be sent over it. */
  typing(): boolean;
  /** Stops asking (a queued prompt runs instead); lines typed from now on are not prompts. */
  release(): void;
  /** Turns bracketed paste off again. */
  close(): void;
}

interface Key {
  name?: string;
  shift?: boolean;
}

export function createPromptInput(options: PromptInputOptions): PromptInput {
  const { readline, history } = options;
  let waiting = false;
  let pasting = false;
  let lines: string[] = [];

  const show = (prompt: string) => {
    history.settle();
    readline.setPrompt(prompt);
    readline.prompt();
  };
  const onKey = (_text: string | undefined, key: Key | undefined) => {
    if (key?.name === "paste-start") pasting = true;
    else if (key?.name === "paste-end") pasting = false;
    else if (key?.name === "tab" && key.shift && waiting && !pasting) options.onShiftTab?.();
  };
  const onLine = (line: string) => {
    // Lines typed while the agent works are not prompts; questions are answered elsewhere.
    if (!waiting) return;
    if (pasting || line.endsWith("\\")) {
      lines.push(pasting ? line : line.slice(0, -1));
      show(CONTINUATION);
      return;
    }
    const text = [...lines, line].join("\n");
    lines = [];
    waiting = false;
    options.onPrompt(text);
  };

  options.input.on("keypress", onKey);
  readline.on("line", onLine);
  if (options.output.isTTY) options.output.write(BRACKETED_PASTE_ON);

  return {
    ask() {
      waiting = true;
      lines = [];
      show(PROMPT);
    },
    clear() {
      if (!waiting || (readline.line === "" && lines.length === 0)) return false;
      lines = [];
      pasting = false;
      readline.write(null, { ctrl: true, name: "e" });
      readline.write(null, { ctrl: true, name: "u" });
      show(PROMPT);
      return true;
    },
    typing: () => waiting && (pasting || readline.line !== "" || lines.length > 0),
    release() {
      waiting = false;
    },
    close() {
      options.input.off("keypress", onKey);
      readline.off("line", onLine);
      if (options.output.isTTY) options.output.write(BRACKETED_PASTE_OFF);
    },
  };
}

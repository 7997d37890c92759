// The prompts typed at the REPL, kept across sessions in a private file so that the up arrow
// finds yesterday's prompts too. One JSON string per line, so a prompt may hold newlines.

import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { stateDirectory } from "../core/state-directory.js";

/** The most prompts kept, in the file and in memory. */
export const HISTORY_SIZE = 1000;

export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDirectory(env), "history");
}

export interface InputHistory {
  /** Newest first: the array given to readline as its `history`, which readline changes too. */
  readonly entries: string[];
  /** Records a whole prompt (a paste, continued lines) and appends it to the file. */
  add(prompt: string): void;
  /**
   * Puts the entries back to the prompts alone. Readline adds every line it reads: each part
   * of a paste, and the answers to permission questions, which are not prompts.
   */
  settle(): void;
}

/** Reads the file; a missing or unreadable one is an empty history, never an error. */
export function openInputHistory(path: string): InputHistory {
  const prompts = readPrompts(path);
  if (prompts.length > HISTORY_SIZE) rewrite(path, prompts.slice(-HISTORY_SIZE));
  const kept = prompts.slice(-HISTORY_SIZE).reverse();
  const entries = [...kept];
  const settle = () => void entries.splice(0, entries.length, ...kept);
  return {
    entries,
    add(prompt) {
      if (prompt.trim() !== "" && kept[0] !== prompt) {
        kept.unshift(prompt);
        if (kept.length > HISTORY_SIZE) kept.pop();
        append(path, prompt);
      }
      settle();
    },
    settle,
  };
}

function readPrompts(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const prompts: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const prompt: unknown = JSON.parse(line);
      if (typeof prompt === "string") prompts.push(prompt);
    } catch {
      // A line cut off by a crash, or written by something else: the others still count.
    }
  }
  return prompts;
}

// History is a convenience: a file that cannot be written costs the up arrow, not the session.
function append(path: string, prompt: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    appendFileSync(path, `${JSON.stringify(prompt)}\n`, { mode: 0o600 });
  } catch {}
}

function rewrite(path: string, prompts: string[]): void {
  try {
    const text = prompts.map((prompt) => `${JSON.stringify(prompt)}\n`).join("");
    writeFileSync(`${path}.tmp`, text, { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
  } catch {}
}

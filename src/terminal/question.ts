// A question the REPL asks the person at the terminal, in one shape whoever asks it (a tool
// call's permission, a project's MCP server): what will happen, on one line; what to judge it
// by, indented under it; then the choices, where the answer is typed. Its sentences are wrapped
// between words to the terminal's width, as all of agentloop's prose is (wrap.ts); its code (a
// command, a diff, arguments) is left to the terminal.
//
// Only the choices are readline's prompt. Readline draws its prompt again, whole, when a key
// edits the answer, by moving up as many rows as it thinks the prompt took: a question taller
// than the screen would be drawn a second time under the first.

import type { Interface } from "node:readline";
import { columnsOf, type Screen, wrapText } from "./wrap.js";

export interface Question {
  /** What a yes lets happen, asked on one line: `Allow edit of notes.txt?`. */
  headline: string;
  /** What to judge it by that is code (a diff, a command's lines, arguments), a line each. */
  code?: readonly string[];
  /** What to judge it by in words (why it is asked, what a yes means), under the code. */
  detail: readonly string[];
  /** The answers, as the line the answer is typed on shows them: `[y]es, [n]o`. */
  choices: string;
}

export interface QuestionTerminal {
  readline: Interface;
  /** Where readline writes: the question's first lines go there before its prompt. */
  output: Screen & { write(text: string): unknown };
  /** Keeps the progress line from drawing over the question; returns its release. */
  hold?: () => () => void;
}

/** Resolves with the line typed, or null when Ctrl-C was pressed instead. */
export type Answer = string | null;

const INDENT = "  ";
/**
 * The questions waiting at each terminal, the one being asked first: a second question waits
 * until the first is answered. The first is asked at once, so a line already typed answers it.
 */
const queues = new WeakMap<Interface, Waiting[]>();
const counts = new WeakMap<Interface, number>();

interface Waiting {
  ask(): void;
  /** Ctrl-C at the question before: the turn is being interrupted, so this one is not asked. */
  cancel(): void;
}

/** How many questions this terminal has shown, so that what one showed is not shown again. */
export function questionsAsked(readline: Interface): number {
  return counts.get(readline) ?? 0;
}

export function askQuestion(terminal: QuestionTerminal, question: Question): Promise<Answer> {
  return new Promise((resolve) => {
    const queue = queues.get(terminal.readline) ?? [];
    queues.set(terminal.readline, queue);
    const answered = (answer: Answer) => {
      queue.shift();
      const next = queue[0];
      if (answer === null) for (const waiting of queue.splice(0)) waiting.cancel();
      else next?.ask();
      resolve(answer);
    };
    queue.push({ ask: () => ask(terminal, question, answered), cancel: () => resolve(null) });
    if (queue.length === 1) queue[0]?.ask();
  });
}

function ask(
  { readline, output, hold }: QuestionTerminal,
  question: Question,
  answered: (answer: Answer) => void,
): void {
  counts.set(readline, questionsAsked(readline) + 1);
  const release = hold?.() ?? (() => {});
  const columns = columnsOf(output);
  const code = (question.code ?? []).map((line) => `${INDENT}${line}\n`).join("");
  const detail = question.detail.map((line) => `${wrapText(`${INDENT}${line}`, columns)}\n`);
  // Only the last row of the choices is readline's prompt, drawn again as the answer is edited.
  const choices = wrapText(question.choices, columns).split("\n");
  const last = choices.pop() ?? "";
  const before = choices.map((row) => `${row}\n`).join("");
  output.write(`\n${wrapText(question.headline, columns)}\n${code}${detail.join("")}${before}`);
  const prompt = readline.getPrompt();
  const done = (answer: Answer) => {
    readline.off("line", onLine);
    readline.off("SIGINT", onInterrupt);
    readline.setPrompt(prompt);
    release();
    answered(answer);
  };
  const onLine = (line: string) => done(line);
  // The REPL hears Ctrl-C as well and interrupts the turn; the question just ends unanswered.
  const onInterrupt = () => done(null);
  readline.on("line", onLine);
  readline.on("SIGINT", onInterrupt);
  readline.setPrompt(`${last} `);
  readline.prompt();
}

// Asks the person at the terminal whether a tool call may run: yes, no (with an optional
// reason the model will read), or always for this rule. The question names what the call
// would do (run a command, edit a file, call a tool) and shows what to judge it by.

import type { Interface } from "node:readline";
import type { PermissionAnswer, PermissionQuestion } from "../permissions/policy.js";
import { askQuestion, type Question } from "./question.js";
import type { Screen } from "./wrap.js";

/** An argument of a tool call is shown on one line of at most this many characters. */
const ARGUMENT_WIDTH = 200;

/**
 * `hold` keeps the progress line from drawing over the question until it is answered. The
 * REPL's readline writes to stdout (src/repl/terminal.ts), and so does its question.
 */
export function terminalAsk(
  readline: Interface,
  hold?: () => () => void,
  output: Screen & { write(text: string): unknown } = process.stdout,
) {
  return async (question: PermissionQuestion): Promise<PermissionAnswer> => {
    const line = await askQuestion({ readline, output, hold }, permissionQuestion(question));
    if (line === null) return "interrupted";
    return parseAnswer(line, question.rules.length > 0);
  };
}

export function permissionQuestion(question: PermissionQuestion): Question {
  const { action, tool, rules } = question;
  const always = rules.length > 0 ? `, [a]lways allow ${rules.join(", ")}` : "";
  const choices = `[y]es, [n]o${always}; after "n" you may say why:`;
  const why = question.reason ? [`(${question.reason})`] : [];
  switch (action.kind) {
    case "command": {
      const lines = action.command.trim().split("\n");
      if (lines.length === 1) {
        return { headline: `Allow ${tool} to run ${lines[0]}?`, detail: why, choices };
      }
      const headline = `Allow ${tool} to run these ${lines.length} lines?`;
      return { headline, code: lines, detail: why, choices };
    }
    case "files": {
      const headline = `Allow ${tool} of ${action.paths.join(", ")}?`;
      return { headline, code: previewLines(question.preview), detail: why, choices };
    }
    case "input": {
      const code = argumentLines(action.input);
      return { headline: `Allow a call to ${tool}?`, code, detail: why, choices };
    }
  }
}

export function parseAnswer(line: string, alwaysOffered: boolean): PermissionAnswer {
  const answer = line.trim();
  const [word = "", ...rest] = answer.split(/\s+/);
  switch (word.toLowerCase()) {
    case "y":
    case "yes":
      return "yes";
    case "a":
    case "always":
      return alwaysOffered ? "always" : "yes";
    default: {
      const reason = ["n", "no"].includes(word.toLowerCase()) ? rest.join(" ") : answer;
      return reason ? { no: reason } : "no";
    }
  }
}

/** The preview of a file change; a diff without its "---"/"+++" lines, which name the file. */
function previewLines(preview: string | undefined): string[] {
  if (!preview?.trim()) return [];
  const lines = preview.trimEnd().split("\n");
  const hunk = lines[0]?.startsWith("--- ") ? lines.findIndex((line) => line.startsWith("@@")) : -1;
  return hunk > 0 ? lines.slice(hunk) : lines;
}

function argumentLines(input: Record<string, unknown>): string[] {
  return Object.entries(input).map(([name, value]) => {
    const line = `${name}: ${JSON.stringify(value)}`;
    return line.length > ARGUMENT_WIDTH ? `${line.slice(0, ARGUMENT_WIDTH - 1)}…` : line;
  });
}

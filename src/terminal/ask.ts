// Asks the person at the terminal whether a tool call may run: yes, no (with an optional
// reason the model will read), or always for this rule.

import type { Interface } from "node:readline";
import type { PermissionAnswer, PermissionQuestion } from "../permissions/policy.js";

/** `hold` keeps the progress line from drawing over the question until it is answered. */
export function terminalAsk(readline: Interface, hold: () => () => void = () => () => {}) {
  return (question: PermissionQuestion): Promise<PermissionAnswer> =>
    new Promise((resolve) => {
      const always =
        question.rules.length > 0 ? `, [a]lways allow ${question.rules.join(", ")}` : "";
      const preview = question.preview ? `\n${question.preview.trimEnd()}` : "";
      const prompt = `\n${question.tool} wants to run: ${question.subject}${preview}\n(${question.reason})\nAllow? [y]es, [n]o${always}; after "n" you may say why: `;
      const release = hold();
      readline.question(prompt, (line) => {
        release();
        resolve(parseAnswer(line, question.rules.length > 0));
      });
    });
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

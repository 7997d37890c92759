// One question at the terminal when no REPL is reading it any more (the session has ended):
// a readline of its own for the length of the question, in the shape of the REPL's questions.

import { createInterface } from "node:readline";
import { type Answer, askQuestion, type Question } from "./question.js";

/** The line typed; null for Ctrl-C, or when the input ends (Ctrl-D) before an answer. */
export async function askOnce(question: Question): Promise<Answer> {
  const readline = createInterface({ input: process.stdin, output: process.stdout });
  const ended = new Promise<Answer>((resolve) => readline.once("close", () => resolve(null)));
  try {
    return await Promise.race([askQuestion({ readline, output: process.stdout }, question), ended]);
  } finally {
    readline.close();
  }
}

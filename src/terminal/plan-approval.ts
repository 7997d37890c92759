// Asks the person at the terminal to approve the model's plan (exit_plan_mode): the plan is shown
// under the question, and the answer approves it, choosing the mode the work goes on in, or says
// what to change, which the model reads as it keeps planning.

import type { Interface } from "node:readline";
import type { PlanVerdict } from "../planning/exit-plan-mode.js";
import { askQuestion, type Question } from "./question.js";

/** `hold` keeps the progress line from drawing over the question, as for permission questions. */
export function terminalPlanApproval(
  readline: Interface,
  hold?: () => () => void,
  output: { write(text: string): unknown } = process.stdout,
) {
  return async (plan: string, file: string): Promise<PlanVerdict> => {
    const line = await askQuestion({ readline, output, hold }, planQuestion(plan, file));
    return line === null ? { kind: "interrupted" } : parsePlanAnswer(line);
  };
}

export function planQuestion(plan: string, file: string): Question {
  return {
    headline: `Approve this plan (${file})?`,
    detail: plan.trimEnd().split("\n"),
    choices: "[y]es, go on in ask mode; [a]uto, go on in auto mode; or say what to change:",
  };
}

export function parsePlanAnswer(line: string): PlanVerdict {
  const answer = line.trim();
  const [word = "", ...rest] = answer.split(/\s+/);
  switch (word.toLowerCase()) {
    case "y":
    case "yes":
      return { kind: "approved", mode: "ask" };
    case "a":
    case "auto":
      return { kind: "approved", mode: "auto" };
    case "n":
    case "no":
      return { kind: "rejected", feedback: rest.join(" ") };
    default:
      return { kind: "rejected", feedback: answer };
  }
}

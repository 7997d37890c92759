// The REPL's /goal, as Claude Code names it (https://code.claude.com/docs/en/goal): with a
// condition it sets the goal, alone it shows the goal and its checks, "clear" removes it.

import type { PartCommand } from "../core/part.js";
import { plural } from "../core/wording.js";
import { goalCondition } from "./goal-options.js";

/** The goal as it stands, what /goal shows. */
export interface GoalStatus {
  condition: string | undefined;
  checks: number;
  /** The latest check's line, if one was made. */
  last: string | undefined;
  judgeModel: string;
  maxContinuations: number;
}

/** Claude Code's words for clearing a goal: clear and its aliases. */
const CLEARING = new Set(["clear", "stop", "off", "reset", "none", "cancel"]);

export function createGoalCommand(goal: {
  status(): GoalStatus;
  set(condition: string): void;
  clear(): void;
}): PartCommand {
  return {
    name: "/goal",
    argument: "[CONDITION|clear]",
    help: "work until a separate judge finds CONDITION met; alone, the goal and its checks",
    run(argument) {
      const text = argument.trim();
      if (text === "") return statusLines(goal.status());
      if (CLEARING.has(text.toLowerCase())) {
        const had = goal.status().condition !== undefined;
        goal.clear();
        return had ? "Goal cleared." : "No goal was set.";
      }
      goal.set(goalCondition(text, "/goal"));
      return "Goal set. Whenever the model finishes an answer, a judge checks it; your next prompt starts the work.";
    },
  };
}

function statusLines(status: GoalStatus): string {
  const checked = status.last ? `\nThe latest: ${status.last}` : "";
  if (status.condition === undefined) {
    return `No goal is set; /goal CONDITION sets one.${checked}`;
  }
  return [
    `Goal: ${status.condition}`,
    `Checked ${plural(status.checks, "time")} by ${status.judgeModel}; at most ${plural(status.maxContinuations, "continuation")} in a row.${checked}`,
  ].join("\n");
}

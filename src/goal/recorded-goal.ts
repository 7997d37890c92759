// The goal a session file holds: the last goal_set or goal_cleared event of the goal part
// decides, so a resumed session (--continue, --resume, /resume) goes on working toward it.

import { existsSync } from "node:fs";
import { readSession } from "../session/session-file.js";

/** The condition still set at the end of `sessionFile`, or undefined when none is. */
export function recordedGoal(sessionFile: string): string | undefined {
  if (!existsSync(sessionFile)) return undefined;
  const last = readSession(sessionFile).entries.findLast(
    (entry) =>
      entry.type === "part" &&
      entry.part === "goal" &&
      (entry.name === "goal_set" || entry.name === "goal_cleared"),
  );
  if (last?.type !== "part" || last.name !== "goal_set") return undefined;
  const condition = last.data?.condition;
  return typeof condition === "string" ? condition : undefined;
}

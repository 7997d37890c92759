// What /team shows: each member, what it is doing and what it cost, and where its work is.

import { inputTokensOf } from "../core/messages.js";
import { count, plural } from "../core/wording.js";
import { LEAD, MAX_TEAMMATES, type Team } from "./team.js";

export function teamLines(team: Team, leadWorking: boolean): string[] {
  const teammates = team.teammates();
  if (teammates.length === 0) {
    return [
      `No teammates yet: the agent tool starts one with a name and run_in_background (at most ${MAX_TEAMMATES}).`,
    ];
  }
  return [
    `Team of ${plural(teammates.length + 1, "member")} (at most ${MAX_TEAMMATES} teammates):`,
    `  ${LEAD} (this session) · ${leadWorking ? "working" : "idle"}`,
    ...teammates.map((teammate) => {
      const usage = teammate.usage();
      const tokens = count(inputTokensOf(usage) + usage.output_tokens);
      const cost = teammate.cost();
      const dollars = cost === null ? "cost unknown" : `$${cost.toFixed(3)}`;
      const state =
        teammate.phase() === "working" ? `working: ${teammate.doing()}` : teammate.phase();
      const where = teammate.child.workspace ? ` · worktree ${teammate.child.workspace}` : "";
      const numbers = `${plural(teammate.turns(), "turn")}, ${tokens} tokens, ${dollars}`;
      return `  ${teammate.name} (${teammate.child.agent.name}) · ${state} · ${numbers}${where}`;
    }),
  ];
}

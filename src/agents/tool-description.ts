// What the agent tool's description says: what a subagent is, when to use one, and the agents
// the model may choose from. It goes into every request, so the list of agents is kept within
// a budget, as the skills' catalog is: with the 158 definitions of a public collection it was
// 40 KB. The descriptions are shortened first; names are left out only when even they do not
// fit, and the list then says how many it leaves out and that /agents shows them all.

import { fitDescriptions } from "../core/fitted-list.js";
import { plural } from "../core/wording.js";
import type { AgentDefinition } from "./definition.js";

const ABOUT = [
  "Run a subagent: a fresh agent with its own history that does one task and returns only its final report.",
  "Use it for searches that would fill this conversation with file reads, or for independent pieces of work; read-only agents called in one reply run at the same time.",
].join(" ");

const HEADING = "Agents (subagent_type):";

/** The description, its list of agents within `listBudget` characters (heading included). */
export function agentToolDescription(
  agents: readonly AgentDefinition[],
  listBudget = Number.POSITIVE_INFINITY,
): string {
  const entries = agents.map((agent) => ({
    head: `- ${agent.name}`,
    description: agent.description,
  }));
  const lines = fitDescriptions(
    entries,
    listBudget - HEADING.length,
    (count) =>
      `- and ${plural(count, "more agent")}, left out for room: the user's /agents lists them all.`,
  );
  return `${ABOUT}\n${HEADING}\n${lines.join("\n")}`;
}

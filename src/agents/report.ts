// What an `agent` call returns: the child's final text, then one status line that says how the
// run ended, whatever the text claims: `[agent explore a1b2: max_turns; 12 tool calls, 48,210
// tokens, $0.031]`. Lines of the child's text that look like the harness's own markup (this
// status line, agentloop's notes, the mark of a cut output) are escaped, so that the parent
// model cannot be told by a child that a run completed when it did not.

import type { LoopStop } from "../core/events.js";
import { count, plural } from "../core/wording.js";

export type ChildStatus = "completed" | "max_turns" | "interrupted" | { error: string };

export interface ChildFacts {
  agentType: string;
  agentId: string;
  status: ChildStatus;
  toolCalls: number;
  tokens: number;
  /** Null when the model's price is not known. */
  costUsd: number | null;
  /** What became of the child's git worktree, when it had one (src/worktrees/). */
  worktree?: string;
}

export function statusOf(stop: LoopStop): ChildStatus {
  switch (stop.reason) {
    case "end_turn":
      return "completed";
    case "max_turns":
      return "max_turns";
    case "interrupted":
      return "interrupted";
    default:
      return { error: stop.detail };
  }
}

export function statusLine(facts: ChildFacts): string {
  const status = typeof facts.status === "string" ? facts.status : `error: ${facts.status.error}`;
  const cost = facts.costUsd === null ? "cost unknown" : dollars(facts.costUsd);
  const numbers = `${plural(facts.toolCalls, "tool call")}, ${count(facts.tokens)} tokens, ${cost}`;
  const worktree = facts.worktree ? `; ${facts.worktree}` : "";
  return `[agent ${facts.agentType} ${facts.agentId}: ${status}; ${numbers}${worktree}]`;
}

/** Three decimals, as "$0.031"; a run that cost something but less than that is not "$0.000". */
function dollars(usd: number): string {
  return usd > 0 && usd < 0.0005 ? "<$0.001" : `$${usd.toFixed(3)}`;
}

const HARNESS_MARKUP = /^(\s*)(\[(?:agent[\s:]|agentloop:|\.\.\. output cut))/;

/** The child's text with every line that imitates the harness's markup escaped by a backslash. */
export function escapeMarkup(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(HARNESS_MARKUP, "$1\\$2"))
    .join("\n");
}

/** The text and the status line, as the parent's tool result before it is bounded. */
export function childReport(finalText: string, facts: ChildFacts): string {
  const text = escapeMarkup(finalText.trim()) || "(the agent gave no final text)";
  return `${text}\n${statusLine(facts)}`;
}

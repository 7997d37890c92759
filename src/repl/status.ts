// The REPL's short reports on the session: the line it starts with, the line after each
// answer, and /cost.

import type { SessionControls } from "../command-line/setup.js";
import { inputTokensOf, type Usage } from "../core/messages.js";
import { count } from "../core/wording.js";
import type { AgentSession } from "../session/agent-session.js";
import { costOf } from "../session/cost.js";

/** `claude-sonnet-5-5 · anthropic · ask · session ID · 3% of context` */
export function startLine(session: AgentSession, controls: SessionControls): string {
  const parts = [session.model, controls.provider, controls.mode, `session ${session.id}`];
  const fill = contextFill(session);
  if (fill) parts.push(fill);
  return [...parts, ...partStatus(session)].join(" · ");
}

/** `· 1200 in · 80 out · 900 from cache · $0.0012 (session $0.0050) · 4% of context` */
export function answerSummary(turnUsage: Usage, session: AgentSession): string {
  const parts = [`${inputTokensOf(turnUsage)} in`, `${turnUsage.output_tokens} out`];
  if (turnUsage.cache_read_input_tokens > 0) {
    parts.push(`${turnUsage.cache_read_input_tokens} from cache`);
  }
  const cost = costOf(session.model, turnUsage);
  const total = session.cost();
  if (cost !== null && total !== null) {
    parts.push(`$${cost.toFixed(4)} (session $${total.toFixed(4)})`);
  }
  const fill = contextFill(session);
  if (fill) parts.push(fill);
  return `· ${[...parts, ...partStatus(session)].join(" · ")}`;
}

/** What /cost prints: the session's tokens by kind, and their price when it is known. */
export function costReport(session: AgentSession): string {
  const usage = session.usage();
  if (inputTokensOf(usage) + usage.output_tokens === 0) {
    return "No requests yet in this session: 0 tokens, $0.";
  }
  const cost = session.cost();
  const price =
    cost === null
      ? `cost unknown (agentloop has no price for ${session.model})`
      : `$${cost.toFixed(4)}`;
  return [
    `${count(inputTokensOf(usage))} tokens in (${count(usage.input_tokens)} new`,
    `, ${count(usage.cache_read_input_tokens)} read from cache`,
    `, ${count(usage.cache_creation_input_tokens)} written to cache)`,
    ` · ${count(usage.output_tokens)} out · ${price}`,
  ].join("");
}

/** What the parts have to say in the status line, in list order. */
function partStatus(session: AgentSession): string[] {
  return session.parts.flatMap((part) => part.status?.() ?? []);
}

function contextFill(session: AgentSession): string | null {
  const fill = session.contextFill();
  return fill ? `${Math.round((100 * fill.tokens) / fill.contextWindow)}% of context` : null;
}

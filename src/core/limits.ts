// Limits stop the loop before the next request, each with its own reason. They fail closed:
// once a limit is hit, no more requests are sent.

import type { LoopStopReason } from "./events.js";
import type { LoopState } from "./loop-state.js";
import type { Message, ToolResultBlock } from "./messages.js";

export interface LimitHit {
  reason: LoopStopReason;
  detail: string;
  /** The run's answer when the limit ends it as done (plan mode's plan), instead of the last text. */
  answer?: string;
}

/** Checked before every request; returns why the loop must stop, or null to go on. */
export type Limit = (state: LoopState) => LimitHit | null;

/** `spent`: what the session has cost so far, or null when a model's price is unknown. */
export function maxCostLimit(maxUsd: number, spent: () => number | null): Limit {
  return () => {
    const cost = spent();
    if (cost === null || cost < maxUsd) return null;
    return {
      reason: "max_cost",
      detail: `Stopped: the session has cost $${cost.toFixed(4)}, reaching --max-cost $${maxUsd}.`,
    };
  };
}

export const REPEAT_WARNING_AT = 3;
export const REPEAT_STOP_AT = 5;

/** Stops a model that keeps making the very same tool calls, after it has been warned. */
export const repeatedCallLimit: Limit = (state) => {
  const repeats = trailingRepeats(state.messages);
  if (repeats < REPEAT_STOP_AT) return null;
  return {
    reason: "repeated_call",
    detail: `Stopped: the model made the same tool call ${repeats} times in a row.`,
  };
};

/** How many assistant messages in a row, counting back from the last, made identical calls. */
export function trailingRepeats(messages: Message[]): number {
  let count = 0;
  let signature: string | undefined;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (message.role !== "assistant") continue;
    const calls = message.content.filter((block) => block.type === "tool_use");
    if (calls.length === 0) break;
    const current = JSON.stringify(calls.map((call) => [call.name, call.input]));
    if (signature !== undefined && current !== signature) break;
    signature = current;
    count += 1;
  }
  return count;
}

/**
 * Tells the model, in the last tool result, that it is repeating itself, so it can change
 * course before `repeatedCallLimit` stops the run. `messages` ends with the assistant reply.
 */
export function warnAboutRepeats(messages: Message[], results: ToolResultBlock[]): void {
  const repeats = trailingRepeats(messages);
  const last = results.at(-1);
  if (repeats < REPEAT_WARNING_AT || !last) return;
  last.content += `\n[agentloop: this is the same call ${repeats} times in a row and its result will not change. Try something different: after ${REPEAT_STOP_AT} identical calls the run is stopped.]`;
}

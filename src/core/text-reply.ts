// What a reply without tool calls means for the loop, by its stop reason: the answer is done,
// the model goes on (pause_turn, or an answer cut off by the output limit, up to three times),
// or the loop stops for a reason a person can read.

import type { LoopState, TurnEnd } from "./loop-state.js";
import type { ModelReply } from "./provider.js";

const MAX_TOKENS_RECOVERIES = 3;

/** The reply holds no tool call: decide from the stop reason whether the answer is done. */
export function afterTextReply(state: LoopState, reply: ModelReply): TurnEnd {
  switch (reply.stopReason) {
    case "end_turn":
    case "stop_sequence":
    case "tool_use":
      return { reason: "end_turn", detail: "The model finished its answer." };
    case "pause_turn":
      state.transitionReason = "pause_turn";
      return { continue: true };
    case "max_tokens":
      if (state.maxTokensRecoveries === MAX_TOKENS_RECOVERIES) {
        const detail = `The answer is incomplete: it was cut off by the output token limit ${MAX_TOKENS_RECOVERIES + 1} times.`;
        return { reason: "max_tokens", detail };
      }
      state.maxTokensRecoveries += 1;
      state.transitionReason = "max_tokens_recovery";
      return { continue: true };
    case "refusal":
      return {
        reason: "refusal",
        detail: "The model declined to continue (stop reason: refusal).",
      };
    case "unknown":
      return {
        reason: "unknown_stop_reason",
        detail: `The model stopped for a reason agentloop does not know (${reply.rawStopReason}); stopping to be safe.`,
      };
  }
}

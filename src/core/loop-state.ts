// What the loop carries from one turn to the next. It lives below the loop so that the steps
// the loop calls (limits, compaction) can read it without importing the loop itself.

import type { LoopStop, TransitionReason } from "./events.js";
import type { Message } from "./messages.js";

export interface LoopState {
  messages: Message[];
  turnCount: number;
  transitionReason: TransitionReason | null;
  /** How many times in a row a cut-off text answer has been continued. */
  maxTokensRecoveries: number;
  /**
   * The input tokens the provider reported for the latest request, and how many messages that
   * request sent: the measured part of the next request's size. Null until a provider reports
   * it, and again once compaction has changed what was sent.
   */
  lastRequestSize: { inputTokens: number; messageCount: number } | null;
}

export function createLoopState(messages: Message[] = []): LoopState {
  return {
    messages,
    turnCount: 1,
    transitionReason: null,
    maxTokensRecoveries: 0,
    lastRequestSize: null,
  };
}

/** How a turn ended: the loop goes on, or stops for this reason. */
export type TurnEnd = { continue: true } | Omit<LoopStop, "type" | "finalText">;

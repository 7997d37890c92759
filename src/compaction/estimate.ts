// The size of the next request in tokens, without a tokenizer: the input tokens the provider
// reported for the latest request, plus what was appended since, converted at the ratio of
// tokens to characters that the same report shows. Before any report, a cautious ratio.

import type { LoopState } from "../loop-state.js";
import type { Message } from "../messages.js";
import type { ToolDefinition } from "../providers/provider.js";

/** Tokens per character of JSON before the provider has reported any usage: a cautious guess. */
const DEFAULT_TOKENS_PER_CHAR = 0.3;

export interface RequestText {
  system: string;
  tools: ToolDefinition[];
}

export interface SizeEstimator {
  /** Estimated input tokens of a request that sends `messages`. */
  tokens(request: RequestText, messages: readonly Message[]): number;
  /** Learns the ratio from the latest report in `state`, when there is one. */
  calibrate(state: LoopState, request: RequestText): void;
}

export function createSizeEstimator(): SizeEstimator {
  // Messages are not changed once recorded (compaction replaces them), so each is measured once.
  const measured = new WeakMap<Message, number>();
  const charsOf = (message: Message) => {
    let chars = measured.get(message);
    if (chars === undefined) {
      chars = JSON.stringify(message.content).length;
      measured.set(message, chars);
    }
    return chars;
  };
  const charsOfRequest = (request: RequestText, messages: readonly Message[]) => {
    let chars = request.system.length + JSON.stringify(request.tools).length;
    for (const message of messages) chars += charsOf(message);
    return chars;
  };
  let tokensPerChar = DEFAULT_TOKENS_PER_CHAR;

  return {
    tokens: (request, messages) => Math.ceil(charsOfRequest(request, messages) * tokensPerChar),
    calibrate(state, request) {
      const report = state.lastRequestSize;
      if (!report || report.inputTokens <= 0) return;
      const sent = state.messages.slice(0, report.messageCount);
      tokensPerChar = report.inputTokens / charsOfRequest(request, sent);
    },
  };
}

// The size of the next request in tokens, without a tokenizer: the input tokens the provider
// reported for the latest request, plus what was appended since, converted at the ratio of
// tokens to characters that the same report shows. Before any report, a cautious ratio.

import type { LoopState } from "../core/loop-state.js";
import type { Message } from "../core/messages.js";
import { IMAGE_TOKENS } from "../images/image-limits.js";
import type { ToolDefinition } from "../providers/provider.js";

/** Tokens per character of JSON before the provider has reported any usage: a cautious guess. */
const DEFAULT_TOKENS_PER_CHAR = 0.3;

/** An image counts as the characters its tokens are worth at the cautious ratio, not its base64. */
const IMAGE_STAND_IN = "i".repeat(Math.ceil(IMAGE_TOKENS / DEFAULT_TOKENS_PER_CHAR));
const withImagesAsTokens = (_key: string, value: unknown) =>
  (value as { type?: unknown } | null)?.type === "image" ? IMAGE_STAND_IN : value;

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
      chars = JSON.stringify(message.content, withImagesAsTokens).length;
      measured.set(message, chars);
    }
    return chars;
  };
  // The tool definitions stay the same array until they change, so they are measured once too.
  const measuredTools = new WeakMap<readonly ToolDefinition[], number>();
  const charsOfTools = (tools: readonly ToolDefinition[]) => {
    let chars = measuredTools.get(tools);
    if (chars === undefined) {
      chars = JSON.stringify(tools).length;
      measuredTools.set(tools, chars);
    }
    return chars;
  };
  // Running totals over the history measured last: `totals[i]` is the characters of its first
  // `i` messages. The next request sends the same messages plus the newest few, so only the new
  // ones are added up; the shared ones cost a comparison each, not a lookup.
  const history: Message[] = [];
  const totals = [0];
  const charsOfFirst = (messages: readonly Message[], count: number) => {
    let same = 0;
    while (same < count && same < history.length && history[same] === messages[same]) same += 1;
    if (same < count && same < history.length) {
      history.length = same;
      totals.length = same + 1;
    }
    for (let index = history.length; index < count; index += 1) {
      const message = messages[index] as Message;
      history.push(message);
      totals.push((totals[index] as number) + charsOf(message));
    }
    return totals[count] as number;
  };
  /** Characters of a request sending the first `count` of `messages`. */
  const charsOfRequest = (
    request: RequestText,
    messages: readonly Message[],
    count = messages.length,
  ) => request.system.length + charsOfTools(request.tools) + charsOfFirst(messages, count);
  let tokensPerChar = DEFAULT_TOKENS_PER_CHAR;

  return {
    tokens: (request, messages) => Math.ceil(charsOfRequest(request, messages) * tokensPerChar),
    calibrate(state, request) {
      const report = state.lastRequestSize;
      if (!report || report.inputTokens <= 0) return;
      const sent = Math.min(report.messageCount, state.messages.length);
      tokensPerChar = report.inputTokens / charsOfRequest(request, state.messages, sent);
    },
  };
}

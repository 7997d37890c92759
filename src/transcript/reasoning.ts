// Reasoning belongs to the model and the protocol that wrote it. Anthropic signs thinking for
// the model that produced it and rejects it from another; a Responses reasoning item means
// nothing to Chat Completions. Before a request, the history is given to the provider without
// the reasoning blocks it may not send: those another model wrote (after /model, or a resume
// with another model), and those its protocol cannot carry. Everything else, the current
// tool-use cycle's thinking above all, goes as it came. The stored transcript never changes.

import type {
  AssistantBlock,
  AssistantMessage,
  Message,
  ReasoningBlock,
} from "../core/messages.js";
import { isReasoning } from "../core/messages.js";

/** The wire protocols, each with the reasoning it can send back. */
export type ReasoningProtocol = "anthropic" | "chat" | "responses" | "local";

const carries: Record<ReasoningProtocol, (block: ReasoningBlock) => boolean> = {
  // Only what Anthropic signed: an unsigned block (another server's reasoning) is rejected.
  anthropic: (block) =>
    block.type === "redacted_thinking" ||
    (block.type === "thinking" && Boolean(block.signature)) ||
    (block.type === "opaque" && block.protocol === "anthropic"),
  // Chat Completions servers take reasoning as plain text (reasoning_content).
  chat: (block) => block.type === "thinking" && !block.signature,
  responses: (block) => block.type === "opaque" && block.protocol === "responses",
  local: (block) => block.type === "thinking" && !block.signature,
};

/** One cache per model and protocol, so a message filtered once is the same object next time. */
const filtered = new Map<string, WeakMap<AssistantMessage, AssistantMessage>>();

/**
 * The history `model` on `protocol` may be sent: the same array when nothing needs leaving out
 * (the usual case), else a copy whose changed messages are the same objects on every request,
 * so that the transcript check (valid.ts) still reads only what was added.
 */
export function reasoningFor(
  messages: readonly Message[],
  target: { model: string; protocol: ReasoningProtocol },
): readonly Message[] {
  const key = `${target.protocol}\u0000${target.model}`;
  let cache = filtered.get(key);
  let result: Message[] | null = null;
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant" || !message.content.some(isReasoning)) continue;
    const keep = (block: AssistantBlock) =>
      !isReasoning(block) ||
      ((message.model === undefined || message.model === target.model) &&
        carries[target.protocol](block));
    if (message.content.every(keep)) continue;
    if (!cache) {
      cache = new WeakMap();
      filtered.set(key, cache);
    }
    let copy = cache.get(message);
    if (!copy) {
      copy = { ...message, content: message.content.filter(keep) };
      cache.set(message, copy);
    }
    result ??= [...messages];
    result[index] = copy;
  }
  return result ?? messages;
}

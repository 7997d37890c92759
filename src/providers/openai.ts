// The OpenAI Chat Completions provider: OpenAI itself and every server that speaks its protocol
// (Ollama, LM Studio, vLLM, llama.cpp, OpenRouter, DeepSeek). It streams the reply, turns it
// into our assistant message (every call named and under an id of its own), and asks again
// when a server answers with nothing at all.

import type OpenAI from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { ProviderError } from "../core/errors.js";
import { lazyCallIdPrefix } from "./call-ids.js";
import { createOpenAIFamilyProvider, type OpenAIProviderOptions } from "./openai-client.js";
import { addChunk, finishReply, isEmptyReply, startReply } from "./openai-reply.js";
import { toChatMessages, toChatTools } from "./openai-request.js";
import type { ModelReply, Provider, StreamEvent } from "./provider.js";

export { EMPTY_REPLY_RETRIES, type OpenAIProviderOptions } from "./openai-client.js";

export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  return createOpenAIFamilyProvider(options, "chat", (client) => (request, messages) => {
    const body: ChatCompletionCreateParamsStreaming = {
      model: options.model,
      messages: toChatMessages(request.system, messages),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (request.tools.length > 0) body.tools = toChatTools(request.tools);
    if (request.toolChoice === "none" && body.tools) body.tool_choice = "none";
    if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
    if (options.effort !== undefined) body.reasoning_effort = options.effort;
    const idPrefix = lazyCallIdPrefix(request.messages);
    return (signal, alive) => streamOnce(client, body, idPrefix, signal, alive);
  });
}

/**
 * One request and its streamed reply, nothing retried. `alive` is called for every chunk, text
 * or not, so a long tool call arriving in pieces does not look like a stalled stream.
 */
async function* streamOnce(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  idPrefix: () => string,
  signal: AbortSignal,
  alive: () => void,
): AsyncGenerator<StreamEvent, ModelReply> {
  const reply = startReply();
  const stream = await client.chat.completions.create(body, { signal });
  for await (const chunk of stream) {
    alive();
    const { text, reasoning } = addChunk(reply, chunk);
    if (reasoning !== "") yield { type: "thinking_delta", text: reasoning };
    if (text !== "") yield { type: "text_delta", text };
  }
  // The SDK ends the iteration quietly when aborted: make the interruption visible.
  signal.throwIfAborted();
  if (reply.finishReason === null && !isEmptyReply(reply)) {
    const message = `The reply from ${client.baseURL} ended before the model finished.`;
    throw new ProviderError("server", message);
  }
  return finishReply(reply, idPrefix, body.model);
}

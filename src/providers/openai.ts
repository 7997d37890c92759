// The OpenAI Chat Completions provider: OpenAI itself and every server that speaks its protocol
// (Ollama, LM Studio, vLLM, llama.cpp, OpenRouter, DeepSeek). It streams the reply, turns it
// into our assistant message (every call named and under an id of its own), and asks again
// when a server answers with nothing at all.

import OpenAI from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { ProviderError } from "../errors.js";
import { isReasoning } from "../messages.js";
import { prepareForRequest, repairReply } from "../transcript.js";
import { reasoningFor } from "../transcript-reasoning.js";
import { lazyCallIdPrefix } from "./call-ids.js";
import { classifyOpenAIError, type ServerContext } from "./openai-errors.js";
import { addChunk, finishReply, isEmptyReply, startReply } from "./openai-reply.js";
import { toChatMessages, toChatTools } from "./openai-request.js";
import type { ModelReply, Provider, StreamEvent } from "./provider.js";
import { type RetryPolicy, withRetries } from "./retry.js";
import type { Effort } from "./thinking-options.js";

export interface OpenAIProviderOptions {
  /** Omitted for local servers that need no key. */
  apiKey?: string | null;
  baseURL: string;
  model: string;
  /** Sent as `max_tokens` only when set: by default the server's own limit applies. */
  maxTokens?: number;
  /** --effort, sent as `reasoning_effort` only when set. */
  effort?: Effort;
  /** The preset's name, used in error messages and as the provider's name. */
  name?: string;
  /** The environment variable the key came from, named when the key is rejected. */
  apiKeyEnv?: string | null;
  retryPolicy?: Partial<RetryPolicy>;
  /**
   * Hears, in one sentence each, every repair made to the transcript before a request, and to
   * a reply as it arrives (a call without a name dropped, a repeated call id renamed).
   */
  onRepair?: (description: string) => void;
}

/** How many times an empty reply is asked for again before giving up. */
export const EMPTY_REPLY_RETRIES = 2;

export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  const server: ServerContext = {
    name: options.name ?? "openai",
    baseURL: options.baseURL,
    model: options.model,
    apiKeyEnv: options.apiKeyEnv === undefined ? "OPENAI_API_KEY" : options.apiKeyEnv,
  };
  const client = new OpenAI({
    // The SDK insists on a key and would take OPENAI_API_KEY from the environment; a server
    // that needs none gets no Authorization header at all, so that key never leaks to it.
    apiKey: options.apiKey ?? "unused",
    defaultHeaders: options.apiKey ? {} : { authorization: null },
    baseURL: options.baseURL,
    maxRetries: 0,
  });

  return {
    name: server.name,
    model: options.model,
    maxOutputTokens: options.maxTokens,
    async *stream(request) {
      const target = { model: options.model, protocol: "chat" } as const;
      const { messages, repairs } = prepareForRequest(reasoningFor(request.messages, target));
      for (const repair of repairs) options.onRepair?.(repair);
      const body: ChatCompletionCreateParamsStreaming = {
        model: options.model,
        messages: toChatMessages(request.system, messages),
        stream: true,
        stream_options: { include_usage: true },
      };
      if (request.tools.length > 0) body.tools = toChatTools(request.tools);
      if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
      if (options.effort !== undefined) body.reasoning_effort = options.effort;
      const idPrefix = lazyCallIdPrefix(request.messages);

      // Transport failures are retried inside withRetries; an empty reply is a whole answer
      // that says nothing, so it is asked for again out here, a fixed small number of times.
      for (let retry = 0; ; retry += 1) {
        const received = yield* withRetries(
          (signal, alive) => streamOnce(client, body, idPrefix, signal, alive),
          {
            signal: request.signal,
            policy: options.retryPolicy,
            classify: (error) => classifyOpenAIError(error, server),
          },
        );
        // Before the loop runs or records the reply: no call without a name, and no id that
        // another call in the reply or the conversation has (some tool parsers repeat them).
        const repaired = repairReply(request.messages, received.message);
        for (const repair of repaired.repairs) options.onRepair?.(repair);
        const reply = { ...received, message: repaired.message };
        // Reasoning alone is no answer: it is asked for again like an empty reply.
        const says = reply.message.content.some((block) => !isReasoning(block));
        if (says || reply.stopReason === "refusal") return reply;
        if (retry === EMPTY_REPLY_RETRIES) {
          throw new ProviderError(
            "empty_reply",
            `The model "${options.model}" sent an empty reply ${EMPTY_REPLY_RETRIES + 1} times in a row (no text and no tool calls).`,
          );
        }
        const reason = "the model sent an empty reply";
        yield { type: "retry", attempt: retry + 2, delayMs: 0, reason };
      }
    },
  };
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

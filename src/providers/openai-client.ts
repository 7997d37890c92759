// What OpenAI's two protocols share, Chat Completions (openai.ts) and Responses
// (openai-responses.ts): the options a provider is made with, the SDK client, the server that
// error messages name, the transcript repaired before each request and each reply after it,
// retries, and the rule for a reply that comes back saying nothing. A protocol adds only how
// one attempt sends the conversation and reads its reply.

import OpenAI from "openai";
import { ProviderError } from "../core/errors.js";
import type { Message } from "../core/messages.js";
import { describeImages } from "../images/describe-images.js";
import { type ReasoningProtocol, reasoningFor } from "../transcript/reasoning.js";
import { prepareForRequest, repairReply } from "../transcript/repair.js";
import { seesImages } from "./model-table.js";
import { classifyOpenAIError, type ServerContext } from "./openai-errors.js";
import type { ModelReply, ModelRequest, Provider, StreamEvent } from "./provider.js";
import { type Attempt, type RetryPolicy, withRetries } from "./retry.js";
import type { Effort } from "./thinking-options.js";

export interface OpenAIProviderOptions {
  /** Omitted for local servers that need no key. */
  apiKey?: string | null;
  baseURL: string;
  model: string;
  /** Sent as the protocol's output limit only when set: by default the server's own applies. */
  maxTokens?: number;
  /** --effort: `reasoning_effort` on Chat Completions, `reasoning.effort` on Responses. */
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

/** A protocol's request for one conversation (repaired), as attempts that can be retried. */
export type AttemptsFor = (request: ModelRequest, messages: Message[]) => Attempt;

export function createOpenAIFamilyProvider(
  options: OpenAIProviderOptions,
  /** Which reasoning the protocol can send back (transcript/reasoning.ts). */
  reasoning: ReasoningProtocol,
  protocol: (client: OpenAI, server: ServerContext) => AttemptsFor,
): Provider {
  const server = serverContext(options);
  const attemptsFor = protocol(createOpenAIClient(options), server);
  return {
    name: server.name,
    model: options.model,
    maxOutputTokens: options.maxTokens,
    async *stream(request) {
      const target = { model: options.model, protocol: reasoning };
      const seen = seesImages(options.model) ? request.messages : describeImages(request.messages);
      const { messages, repairs } = prepareForRequest(reasoningFor(seen, target));
      for (const repair of repairs) options.onRepair?.(repair);
      const attempt = attemptsFor(request, messages);
      return yield* replyWithRetries(attempt, request.messages, request.signal, options, server);
    },
  };
}

function serverContext(options: OpenAIProviderOptions): ServerContext {
  return {
    name: options.name ?? "openai",
    baseURL: options.baseURL,
    model: options.model,
    apiKeyEnv: options.apiKeyEnv === undefined ? "OPENAI_API_KEY" : options.apiKeyEnv,
  };
}

function createOpenAIClient(options: OpenAIProviderOptions): OpenAI {
  return new OpenAI({
    // The SDK insists on a key and would take OPENAI_API_KEY from the environment; a server
    // that needs none gets no Authorization header at all, so that key never leaks to it.
    apiKey: options.apiKey ?? "unused",
    defaultHeaders: options.apiKey ? {} : { authorization: null },
    baseURL: options.baseURL,
    // Our retries wrap the whole stream (retry.ts); the SDK's would multiply with them.
    maxRetries: 0,
  });
}

/**
 * Runs attempts (retried inside withRetries) until one brings a reply worth keeping, repaired
 * before the loop runs or records it: no call without a name, and no id that another call in
 * the reply or the conversation has. A reply with neither text nor a call is a whole answer
 * that says nothing, so it is asked for again out here, a fixed small number of times.
 */
async function* replyWithRetries(
  attempt: Attempt,
  history: readonly Message[],
  signal: AbortSignal,
  options: OpenAIProviderOptions,
  server: ServerContext,
): AsyncGenerator<StreamEvent, ModelReply, void> {
  for (let retry = 0; ; retry += 1) {
    const received = yield* withRetries(attempt, {
      signal,
      policy: options.retryPolicy,
      classify: (error) => classifyOpenAIError(error, server),
    });
    const repaired = repairReply(history, received.message);
    for (const repair of repaired.repairs) options.onRepair?.(repair);
    const reply = { ...received, message: repaired.message };
    if (!saysNothing(reply)) return reply;
    if (retry === EMPTY_REPLY_RETRIES) {
      throw new ProviderError(
        "empty_reply",
        `The model "${options.model}" sent an empty reply ${EMPTY_REPLY_RETRIES + 1} times in a row (no text and no tool calls).`,
      );
    }
    const reason = "the model sent an empty reply";
    yield { type: "retry", attempt: retry + 2, delayMs: 0, reason };
  }
}

/** Reasoning alone is not an answer (it cannot even be sent back alone); a refusal is one. */
function saysNothing(reply: ModelReply): boolean {
  if (reply.stopReason === "refusal") return false;
  return !reply.message.content.some((block) => block.type === "text" || block.type === "tool_use");
}

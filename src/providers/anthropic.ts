// The Anthropic Messages API as a Provider, through the official SDK. Our messages are already
// Anthropic-shaped, so this file only adds what the wire needs: transcript repair, prompt-cache
// breakpoints, streaming text as it arrives, our own retries around the whole stream, and
// errors turned into sentences a user can act on.

import type { Middleware } from "@anthropic-ai/sdk";
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import {
  type Message as AnthropicMessage,
  type Tool as AnthropicTool,
  type CacheControlEphemeral,
  type ContentBlockParam,
  type MessageCreateParamsBase,
  type MessageParam,
  Messages,
} from "@anthropic-ai/sdk/resources/messages";
import { ConfigError } from "../errors.js";
import type { AssistantBlock, Message, StopReason } from "../messages.js";
import { prepareForRequest } from "../transcript.js";
import { classifyAnthropicError } from "./anthropic-errors.js";
import type {
  ModelReply,
  ModelRequest,
  Provider,
  StreamEvent,
  ToolDefinition,
} from "./provider.js";
import { type RetryPolicy, withRetries } from "./retry.js";

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Defaults to ANTHROPIC_BASE_URL, then https://api.anthropic.com (the SDK's rule). */
  baseURL?: string;
  model: string;
  /** The most output tokens one reply may use. */
  maxTokens?: number;
  retryPolicy?: Partial<RetryPolicy>;
  /** Hears, in one sentence each, every repair made to the transcript before a request. */
  onRepair?: (description: string) => void;
}

export const DEFAULT_MAX_TOKENS = 8192;

const EPHEMERAL: CacheControlEphemeral = { type: "ephemeral" };

/**
 * The SDK's client with the one resource agentloop calls. The full client (`Anthropic`) builds
 * every resource (beta, files, models, ...) and brings 500 KB more code to compile at start-up.
 */
class MessagesClient extends BaseAnthropic {
  messages = new Messages(this);
}

export function createAnthropicProvider(options: AnthropicProviderOptions): Provider {
  if (!options.apiKey) {
    throw new ConfigError("No Anthropic API key: set ANTHROPIC_API_KEY (or put it in .env).");
  }
  // Our retries wrap the whole stream, so the SDK's (which cover only the response headers)
  // would multiply with them.
  const client = new MessagesClient({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: 0,
  });
  const target = { model: options.model, baseURL: client.baseURL };

  return {
    name: "anthropic",
    model: options.model,
    maxOutputTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    async *stream(request) {
      const params = messagesRequestBody(request, options);
      return yield* withRetries((signal, alive) => streamOnce(client, params, signal, alive), {
        signal: request.signal,
        policy: options.retryPolicy,
        classify: (error) => classifyAnthropicError(error, target),
      });
    },
  };
}

/**
 * The Messages API body for one request: the repaired transcript with cache breakpoints. Each
 * repair is reported to `onRepair`. Exported so tests can check the exact wire form in-process.
 */
export function messagesRequestBody(
  request: ModelRequest,
  options: Pick<AnthropicProviderOptions, "model" | "maxTokens" | "onRepair">,
): MessageCreateParamsBase {
  const { messages, repairs } = prepareForRequest(request.messages);
  for (const repair of repairs) options.onRepair?.(repair);
  return {
    model: options.model,
    max_tokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...(request.system && {
      system: [{ type: "text", text: request.system, cache_control: EPHEMERAL }],
    }),
    ...(request.tools.length > 0 && { tools: toolsWithBreakpoint(request.tools) }),
    messages: messagesWithBreakpoint(messages),
  };
}

async function* streamOnce(
  client: MessagesClient,
  params: MessageCreateParamsBase,
  signal: AbortSignal,
  alive: () => void,
): AsyncGenerator<StreamEvent, ModelReply> {
  const middleware = [reportingProgress(alive)];
  const stream = client.messages.stream(params, { signal, middleware });
  for await (const event of stream) {
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
      if (event.delta.text) yield { type: "text_delta", text: event.delta.text };
    }
  }
  return toModelReply(await stream.finalMessage());
}

/**
 * Makes the response report every chunk that arrives. The SDK hides SSE pings, but a server
 * that pings while the model thinks is alive, and the idle timeout must know it. A middleware
 * of this one request, since a client copy with its own fetch (withOptions) costs a whole
 * client's construction on every request.
 */
function reportingProgress(alive: () => void): Middleware {
  return async (request, next) => {
    const response = await next(request);
    alive();
    if (!response.body) return response;
    // One stream pulling from the body: a TransformStream would make two more and a pipe
    // between them, on every request.
    const reader = response.body.getReader();
    const reporting = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        alive();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const { status, statusText, headers } = response;
    return new Response(reporting, { status, statusText, headers });
  };
}

/**
 * The SDK parses a tool input cut off by max_tokens leniently, so the input may look whole;
 * the stop reason says whether it is. Empty text blocks are dropped: sending one back is a 400.
 */
function toModelReply(message: AnthropicMessage): ModelReply {
  const content: AssistantBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text" && block.text.trim()) {
      content.push({ type: "text", text: block.text });
    } else if (block.type === "tool_use") {
      content.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
    }
  }
  return {
    message: { role: "assistant", content },
    stopReason: toStopReason(message.stop_reason),
    rawStopReason: message.stop_reason,
    usage: {
      input_tokens: message.usage.input_tokens,
      output_tokens: message.usage.output_tokens,
      cache_read_input_tokens: message.usage.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: message.usage.cache_creation_input_tokens ?? 0,
    },
  };
}

function toStopReason(reason: AnthropicMessage["stop_reason"]): StopReason {
  switch (reason) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "pause_turn":
    case "refusal":
      return reason;
    default:
      return "unknown";
  }
}

/**
 * Prompt caching: the breakpoint on the last tool caches the tool definitions, the one on the
 * system prompt caches tools + system, and the one on the newest message's last block caches
 * the whole conversation so far, which the next request reads back.
 */
function toolsWithBreakpoint(tools: ToolDefinition[]): AnthropicTool[] {
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema as AnthropicTool.InputSchema,
    ...(index === tools.length - 1 && { cache_control: EPHEMERAL }),
  }));
}

function messagesWithBreakpoint(messages: Message[]): MessageParam[] {
  return messages.map((original, index): MessageParam => {
    const message = withObjectInputs(original);
    if (index !== messages.length - 1) return message as MessageParam;
    const blocks = (
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : message.content
    ) as ContentBlockParam[];
    const last = blocks.at(-1) as ContentBlockParam;
    const content = [...blocks.slice(0, -1), { ...last, cache_control: EPHEMERAL }];
    return { role: message.role, content } as MessageParam;
  });
}

/**
 * The API takes only a JSON object as a tool call's input. Another provider may have recorded
 * the raw text of arguments that were not JSON (a resumed session); such a call goes as `{}`,
 * and its error result already tells the model what was wrong with it.
 */
function withObjectInputs(message: Message): Message {
  if (message.role === "user") return message;
  if (message.content.every((block) => block.type !== "tool_use" || isObject(block.input))) {
    return message;
  }
  const content = message.content.map((block) =>
    block.type === "tool_use" && !isObject(block.input) ? { ...block, input: {} } : block,
  );
  return { role: "assistant", content };
}

function isObject(input: unknown): boolean {
  return typeof input === "object" && input !== null && !Array.isArray(input);
}

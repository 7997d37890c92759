// The Anthropic Messages API as a Provider, through the official SDK. Our messages are already
// Anthropic-shaped, so this file only adds what the wire needs: transcript repair, prompt-cache
// breakpoints, the model's thinking settings, streaming text and thinking as they arrive, our
// own retries around the whole stream, and errors turned into sentences a user can act on.
// A reply is kept as it came, every block in order (thinking and its signature included), as
// the seed appends `response.content`: the API rejects a tool-use cycle whose thinking is gone.

import type { Middleware } from "@anthropic-ai/sdk";
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import {
  type Message as AnthropicMessage,
  type Tool as AnthropicTool,
  type CacheControlEphemeral,
  type ContentBlockParam,
  type ImageBlockParam,
  type MessageCreateParamsBase,
  type MessageParam,
  Messages,
  type TextBlockParam,
  type ToolUnion,
} from "@anthropic-ai/sdk/resources/messages";
import { ConfigError, ProviderError } from "../core/errors.js";
import type { AssistantBlock, Message, StopReason, UserMessage } from "../core/messages.js";
import { describeImages } from "../images/describe-images.js";
import { reasoningFor } from "../transcript/reasoning.js";
import { prepareForRequest } from "../transcript/repair.js";
import { classifyAnthropicError } from "./anthropic-errors.js";
import {
  type AnthropicThinking,
  anthropicThinking,
  cycleLacksThinking,
  withoutCycleThinking,
} from "./anthropic-thinking.js";
import {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_OUTPUT,
  modelFacts,
  seesImages,
} from "./model-table.js";
import type {
  ModelReply,
  ModelRequest,
  Provider,
  StreamEvent,
  ToolDefinition,
} from "./provider.js";
import { type RetryPolicy, withRetries } from "./retry.js";
import { onceEach, withSdkWarnings } from "./sdk-warnings.js";
import { isWebSearch } from "./server-tools.js";
import type { ThinkingOptions } from "./thinking-options.js";

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Defaults to ANTHROPIC_BASE_URL, then https://api.anthropic.com (the SDK's rule). */
  baseURL?: string;
  model: string;
  /**
   * The most output tokens one reply may use; by default the model's largest output, or a
   * quarter of the context window (the room compaction keeps for a reply) when that is less.
   */
  maxTokens?: number;
  /** The window the history is fitted into, when the user or the session says (not the table). */
  contextWindow?: number;
  /** --thinking and --effort, and whether the user should see what the model thinks. */
  thinking?: ThinkingOptions;
  retryPolicy?: Partial<RetryPolicy>;
  /** Hears, in one sentence each, every repair made to the transcript before a request. */
  onRepair?: (description: string) => void;
  /** Hears what the SDK warns about (a model near its end of life), once per session each. */
  onNotice?: (sentence: string) => void;
}

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
  // A choice the model cannot take fails here, before any request, in one sentence.
  const thinking = anthropicThinking(options.model, options.thinking ?? {});
  const notice = onceEach(options.onNotice);

  // The model's largest output, until a server with a smaller window than the table's says so.
  let maxTokens = maxTokensOf(options);
  const send = (request: ModelRequest) => {
    const params = messagesRequestBody(request, { ...options, thinking, maxTokens });
    const start = (signal: AbortSignal, alive: () => void) =>
      streamOnce(client, params, { signal, alive, notice, model: options.model });
    return withRetries(start, {
      signal: request.signal,
      policy: options.retryPolicy,
      classify: (error) => classifyAnthropicError(error, target),
    });
  };

  return {
    name: "anthropic",
    model: options.model,
    webSearch: true,
    get maxOutputTokens() {
      return maxTokens;
    },
    async *stream(request) {
      try {
        return yield* send(request);
      } catch (error) {
        const room = outputRoom(error, maxTokens);
        if (room === null) throw error;
        maxTokens = room;
        const reason = `the reply's room did not fit the model's context window; asking for ${room} output tokens`;
        yield { type: "retry", attempt: 2, delayMs: 0, reason };
        return yield* send(request);
      }
    },
  };
}

/**
 * The Messages API body for one request: the repaired transcript with cache breakpoints. Each
 * repair is reported to `onRepair`. Exported so tests can check the exact wire form in-process.
 */
export function messagesRequestBody(
  request: ModelRequest,
  options: Pick<AnthropicProviderOptions, "model" | "maxTokens" | "onRepair"> & {
    thinking?: AnthropicThinking;
  },
): MessageCreateParamsBase {
  const seen = seesImages(options.model) ? request.messages : describeImages(request.messages);
  const sendable = reasoningFor(seen, { model: options.model, protocol: "anthropic" });
  const { messages, repairs } = prepareForRequest(sendable);
  for (const repair of repairs) options.onRepair?.(repair);
  const thinking = options.thinking ?? {};
  return {
    model: options.model,
    max_tokens: maxTokensOf(options),
    ...(cycleLacksThinking(messages) ? withoutCycleThinking(options.model, thinking) : thinking),
    ...(request.system && {
      system: [{ type: "text", text: request.system, cache_control: EPHEMERAL }],
    }),
    ...(request.tools.length > 0 && { tools: toolsWithBreakpoint(request.tools) }),
    // {type: "none"}: the tools stay defined, and Claude answers without calling them.
    ...(request.toolChoice === "none" &&
      request.tools.length > 0 && { tool_choice: { type: "none" as const } }),
    messages: messagesWithBreakpoint(messages),
  };
}

/**
 * The output tokens to ask for after the API refused `input + max_tokens` as more than the
 * window ("input length and `max_tokens` exceed context limit: 3000 + 64000 > 40000"): a
 * quarter of the window, the room compaction keeps free for a reply, when the input fits
 * beside it. Null when the error is another, or the input itself leaves no such room: then it
 * is a conversation too long, which compaction handles.
 */
function outputRoom(error: unknown, asked: number): number | null {
  if (!(error instanceof ProviderError) || error.kind !== "context_too_long") return null;
  const found = /exceed context limit: (\d+) \+ (\d+) > (\d+)/.exec(error.message);
  if (!found) return null;
  const [input, window] = [Number(found[1]), Number(found[3])];
  const room = Math.floor(window / 4);
  return room < asked && input + room <= window ? room : null;
}

function maxTokensOf(
  options: Pick<AnthropicProviderOptions, "model" | "maxTokens" | "contextWindow">,
): number {
  if (options.maxTokens !== undefined) return options.maxTokens;
  const facts = modelFacts(options.model);
  const window = options.contextWindow ?? facts?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  return Math.min(facts?.maxOutput ?? DEFAULT_MAX_OUTPUT, Math.floor(window / 4));
}

interface StreamContext {
  signal: AbortSignal;
  alive: () => void;
  notice: (sentence: string) => void;
  model: string;
}

async function* streamOnce(
  client: MessagesClient,
  params: MessageCreateParamsBase,
  { signal, alive, notice, model }: StreamContext,
): AsyncGenerator<StreamEvent, ModelReply> {
  const middleware = [reportingProgress(alive)];
  // The SDK warns on the console as it sends (a deprecated model): those warnings become
  // agentloop's notices, once each, instead of lines in the middle of an answer.
  const stream = withSdkWarnings(notice, () =>
    client.messages.stream(params, { signal, middleware }),
  );
  for await (const event of stream) {
    if (event.type !== "content_block_delta") continue;
    if (event.delta.type === "text_delta" && event.delta.text) {
      yield { type: "text_delta", text: event.delta.text };
    } else if (event.delta.type === "thinking_delta" && event.delta.thinking) {
      yield { type: "thinking_delta", text: event.delta.thinking };
    }
  }
  return toModelReply(await stream.finalMessage(), model);
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
 * The reply as it came, block by block. The SDK parses a tool input cut off by max_tokens
 * leniently, so the input may look whole; the stop reason says whether it is. Empty text
 * blocks are dropped (sending one back is a 400), and so is a thinking block cut off before
 * its signature arrived (max_tokens mid-thinking): it can never be sent back.
 */
function toModelReply(message: AnthropicMessage, model: string): ModelReply {
  const content: AssistantBlock[] = [];
  for (const block of message.content) {
    const kept = keptBlock(block);
    if (kept) content.push(kept);
  }
  return {
    message: { role: "assistant", content, model },
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

function keptBlock(block: AnthropicMessage["content"][number]): AssistantBlock | null {
  switch (block.type) {
    case "text":
      return block.text.trim() ? { type: "text", text: block.text } : null;
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: block.input };
    case "thinking":
      // @step thinking: A thinking block is kept, signature and all: the API needs it back.
      return block.signature
        ? { type: "thinking", thinking: block.thinking, signature: block.signature }
        : null;
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    default:
      // A block this code does not know (a newer API's): kept whole, sent back unchanged.
      return { type: "opaque", protocol: "anthropic", item: { ...block } };
  }
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
    // The reply filled what was left of the window before max_tokens: cut off like a reply at
    // max_tokens (its cut call is not run, its text is continued), and the next request's
    // compaction sees a full window. https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons
    case "model_context_window_exceeded":
      return "max_tokens";
    default:
      return "unknown";
  }
}

/**
 * Prompt caching: the breakpoint on the last tool caches the tool definitions, the one on the
 * system prompt caches tools + system, and the one on the newest message's last block caches
 * the whole conversation so far, which the next request reads back.
 */
function toolsWithBreakpoint(tools: ToolDefinition[]): ToolUnion[] {
  return tools.map((tool, index) => ({
    ...(isWebSearch(tool)
      ? WEB_SEARCH
      : {
          name: tool.name,
          description: tool.description,
          input_schema: tool.input_schema as AnthropicTool.InputSchema,
        }),
    ...(index === tools.length - 1 && { cache_control: EPHEMERAL }),
  }));
}

/**
 * Anthropic's web search server tool, in its basic version (the later ones filter results with
 * code execution): https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool.
 * Its `server_tool_use` and `web_search_tool_result` blocks, encrypted content and all, are kept
 * as opaque blocks (keptBlock) and go back unchanged. Each search costs $10 per 1,000.
 */
const WEB_SEARCH = { type: "web_search_20250305", name: "web_search", max_uses: 5 } as const;

function messagesWithBreakpoint(messages: Message[]): MessageParam[] {
  return messages.map((original, index): MessageParam => {
    const message = toWireMessage(original);
    if (index !== messages.length - 1) return message;
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
 * An assistant message in the API's words: only `role` and `content` (the model that wrote it
 * stays on our side), an opaque block as the item it came as, and every tool call's input a
 * JSON object. Another provider may have recorded the raw text of arguments that were not JSON
 * (a resumed session); such a call goes as `{}`, and its error result already says what was
 * wrong with it. Thinking blocks are already in the API's shape and go unchanged.
 */
function toWireMessage(message: Message): MessageParam {
  if (message.role === "user") return toWireUser(message);
  const content = message.content.some(needsRewriting)
    ? message.content.map(toWireBlock)
    : message.content;
  return { role: "assistant", content: content as ContentBlockParam[] };
}

/**
 * A tool result's images go inside its `tool_result` as image blocks with a base64 source:
 * the SDK's ToolResultBlockParam takes `content` as a string or a list of text and image
 * blocks (among others), the form platform.claude.com/docs/en/build-with-claude/vision
 * describes for images. Empty text parts are left out: the API rejects an empty text block.
 */
function toWireUser(message: UserMessage): MessageParam {
  if (typeof message.content === "string") return message as MessageParam;
  const content = message.content.map((block) => {
    if (block.type !== "tool_result" || typeof block.content === "string") return block;
    const parts = block.content.flatMap((part): (TextBlockParam | ImageBlockParam)[] => {
      if (part.type === "text") return part.text === "" ? [] : [part];
      return [
        { type: "image", source: { type: "base64", media_type: part.mediaType, data: part.data } },
      ];
    });
    return { ...block, content: parts };
  });
  return { role: "user", content: content as ContentBlockParam[] };
}

function needsRewriting(block: AssistantBlock): boolean {
  return block.type === "opaque" || (block.type === "tool_use" && !isObject(block.input));
}

function toWireBlock(block: AssistantBlock): AssistantBlock | Record<string, unknown> {
  if (block.type === "opaque") return block.item;
  if (block.type === "tool_use" && !isObject(block.input)) return { ...block, input: {} };
  return block;
}

function isObject(input: unknown): boolean {
  return typeof input === "object" && input !== null && !Array.isArray(input);
}

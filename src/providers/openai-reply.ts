// Builds our assistant message from raw Chat Completions chunks. We gather the chunks ourselves
// rather than use the SDK's stream helper because compatible servers differ in how they split
// a tool call: some send the id and name only in the first chunk, some repeat them, some send
// an empty name or id later, some send no id at all, some send the whole call in one chunk.
// Keying the calls by `index` (and by id where a server reuses an index) handles all of these
// with rules we can read and test, and keeps the raw argument text for invalid JSON. An id
// never joins deltas at different indexes: some tool parsers give every call of a reply the
// same id, and some servers change a call's id from chunk to chunk.

import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { type AssistantBlock, emptyUsage, type StopReason, type Usage } from "../core/messages.js";
import type { ModelReply } from "./provider.js";

interface PartialToolCall {
  index: number | undefined;
  id: string;
  name: string;
  arguments: string;
}

export interface ReplyInProgress {
  chunkCount: number;
  text: string;
  /** The model's reasoning (`reasoning_content`, or `reasoning` on some servers). */
  reasoning: string;
  toolCalls: PartialToolCall[];
  finishReason: string | null;
  usage: Usage;
}

export function startReply(): ReplyInProgress {
  return {
    chunkCount: 0,
    text: "",
    reasoning: "",
    toolCalls: [],
    finishReason: null,
    usage: emptyUsage(),
  };
}

/** What one chunk added, for streaming to the user: answer text and reasoning apart. */
export interface ChunkText {
  text: string;
  reasoning: string;
}

const NOTHING: ChunkText = { text: "", reasoning: "" };

/**
 * Reasoning as servers stream it beside `content`: DeepSeek, SGLang, Kimi, GLM and Qwen's own
 * servers (and vLLM before 0.10) call it `reasoning_content`; vLLM, Ollama and OpenRouter
 * `reasoning`. The SDK's types know neither.
 */
interface ReasoningDelta {
  reasoning_content?: string | null;
  reasoning?: string | null;
}

/** Adds one chunk to the reply and returns the text and reasoning it carried. */
export function addChunk(reply: ReplyInProgress, chunk: ChatCompletionChunk): ChunkText {
  reply.chunkCount += 1;
  if (chunk.usage) reply.usage = toUsage(chunk.usage);
  const choice = chunk.choices?.[0];
  if (!choice) return NOTHING;
  if (choice.finish_reason) reply.finishReason = choice.finish_reason;
  for (const delta of choice.delta?.tool_calls ?? []) {
    const name = delta.function?.name ?? "";
    const call = findOrStartCall(reply.toolCalls, delta.index, delta.id ?? "", name);
    // The first id a call gets is its id: later chunks may carry other ids (see below).
    if (delta.id && call.id === "") call.id = delta.id;
    // Names arrive whole; a server that repeats the name must not turn "bash" into "bashbash".
    if (name !== "" && call.name === "") call.name = name;
    call.arguments += delta.function?.arguments ?? "";
  }
  const text = choice.delta?.content ?? "";
  const delta = choice.delta as ReasoningDelta | undefined;
  const reasoning = delta?.reasoning_content ?? delta?.reasoning ?? "";
  reply.text += text;
  reply.reasoning += typeof reasoning === "string" ? reasoning : "";
  return text === "" && reasoning === "" ? NOTHING : { text, reasoning };
}

/**
 * The call a delta belongs to. Its `index` (the call's position in the reply) decides first:
 * a delta never continues a call at another index, whatever its id. At its index, a delta
 * continues the call with its id, else the latest call there (when the server sends no index,
 * the latest call of all), unless it starts a new one (see `startsAnotherCall`).
 */
function findOrStartCall(
  calls: PartialToolCall[],
  index: number | undefined,
  id: string,
  name: string,
): PartialToolCall {
  const here = index === undefined ? calls : calls.filter((call) => call.index === index);
  const sameId = id === "" ? undefined : here.findLast((call) => call.id === id);
  if (sameId) return sameId;
  const latest = here.at(-1);
  if (latest && !(id !== "" && startsAnotherCall(latest, name))) return latest;
  const call: PartialToolCall = { index, id: "", name: "", arguments: "" };
  calls.push(call);
  return call;
}

/**
 * Whether a delta with a new id, at an index whose latest call has another id, starts a call
 * of its own. Some servers send every parallel call at index 0, told apart only by their ids;
 * others (Poolside's API, vLLM's gpt-oss parser) send a new id with every chunk of one call,
 * some of them with the name again. A call still being written (no id or name yet, or
 * arguments begun but not yet whole JSON) goes on. After whole arguments a new call begins;
 * before any, only a delta naming another tool begins one.
 */
function startsAnotherCall(latest: PartialToolCall, name: string): boolean {
  if (latest.id === "" || latest.name === "") return false;
  const args = latest.arguments.trim();
  if (args === "") return name !== "" && name !== latest.name;
  return isWholeJson(args);
}

/** Whole JSON arguments end in "}" (an object), and only then are they worth parsing. */
function isWholeJson(args: string): boolean {
  if (!args.endsWith("}")) return false;
  try {
    JSON.parse(args);
    return true;
  } catch {
    return false;
  }
}

/** True when the model said nothing and called nothing: worth asking again. */
export function isEmptyReply(reply: ReplyInProgress): boolean {
  return reply.text.trim() === "" && reply.toolCalls.length === 0;
}

/**
 * The finished reply in our shape. `idPrefix` names calls that came without an id; it is only
 * called for them.
 */
export function finishReply(
  reply: ReplyInProgress,
  idPrefix: () => string,
  model: string,
): ModelReply {
  const content: AssistantBlock[] = [];
  // Kept to be sent back: DeepSeek rejects a tool-calling history whose reasoning is gone.
  if (reply.reasoning.trim() !== "") content.push({ type: "thinking", thinking: reply.reasoning });
  // Whitespace-only text is dropped: Anthropic-shaped transcripts may not hold empty text.
  if (reply.text.trim() !== "") content.push({ type: "text", text: reply.text });
  for (const [position, call] of reply.toolCalls.entries()) {
    const id = call.id === "" ? `${idPrefix()}_${position}` : call.id;
    content.push({ type: "tool_use", id, name: call.name, input: parseArguments(call.arguments) });
  }
  return {
    message: { role: "assistant", content, model },
    stopReason: toStopReason(reply.finishReason),
    rawStopReason: reply.finishReason,
    usage: reply.usage,
  };
}

/**
 * Parameterless tools often get "" as arguments, which means no input. Arguments that are not
 * JSON stay the raw string, so the toolbox answers with an error quoting it and runs nothing.
 * The Responses API's calls are read the same way (responses-reply.ts).
 */
export function parseArguments(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function toStopReason(finishReason: string | null): StopReason {
  switch (finishReason) {
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "stop":
      return "end_turn";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return "unknown";
  }
}

function toUsage(usage: NonNullable<ChatCompletionChunk["usage"]>): Usage {
  return openAIUsage({
    input: usage.prompt_tokens ?? 0,
    output: usage.completion_tokens ?? 0,
    cacheRead: usage.prompt_tokens_details?.cached_tokens ?? 0,
  });
}

/**
 * OpenAI's count of input tokens includes those read from (and written to) the prompt cache,
 * in both its protocols; ours, as Anthropic's, counts them apart (`input_tokens` is the
 * uncached part), so that inputTokensOf and the cost add each token once.
 */
export function openAIUsage(counts: {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite?: number;
}): Usage {
  const cacheWrite = counts.cacheWrite ?? 0;
  return {
    input_tokens: Math.max(0, counts.input - counts.cacheRead - cacheWrite),
    output_tokens: counts.output,
    cache_read_input_tokens: counts.cacheRead,
    cache_creation_input_tokens: cacheWrite,
  };
}

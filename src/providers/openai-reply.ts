// Builds our assistant message from raw Chat Completions chunks. We gather the chunks ourselves
// rather than use the SDK's stream helper because compatible servers differ in how they split
// a tool call: some send the id and name only in the first chunk, some repeat them, some send
// an empty name or id later, some send no id at all, some send the whole call in one chunk.
// Keying the calls by `index` (and by id where a server reuses an index) handles all of these
// with rules we can read and test, and keeps the raw argument text for invalid JSON.

import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { type AssistantBlock, emptyUsage, type StopReason, type Usage } from "../messages.js";
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
  toolCalls: PartialToolCall[];
  finishReason: string | null;
  usage: Usage;
}

export function startReply(): ReplyInProgress {
  return { chunkCount: 0, text: "", toolCalls: [], finishReason: null, usage: emptyUsage() };
}

/** Adds one chunk to the reply and returns the text it carried, for streaming to the user. */
export function addChunk(reply: ReplyInProgress, chunk: ChatCompletionChunk): string {
  reply.chunkCount += 1;
  if (chunk.usage) reply.usage = toUsage(chunk.usage);
  const choice = chunk.choices?.[0];
  if (!choice) return "";
  if (choice.finish_reason) reply.finishReason = choice.finish_reason;
  for (const delta of choice.delta?.tool_calls ?? []) {
    const call = findOrStartCall(reply.toolCalls, delta.index, delta.id);
    if (delta.id) call.id = delta.id;
    // Names arrive whole; a server that repeats the name must not turn "bash" into "bashbash".
    if (delta.function?.name && call.name === "") call.name = delta.function.name;
    call.arguments += delta.function?.arguments ?? "";
  }
  const text = choice.delta?.content ?? "";
  reply.text += text;
  return text;
}

/**
 * A delta continues the call with its id, or else the latest call at its index (or the latest
 * call, when the server sends no index). A new id starts a new call even at a used index,
 * because some servers send every parallel call at index 0.
 */
function findOrStartCall(
  calls: PartialToolCall[],
  index: number | undefined,
  id: string | undefined,
): PartialToolCall {
  const known = (call: PartialToolCall) =>
    id ? call.id === id : index === undefined || call.index === index;
  const existing = calls.findLast(known);
  if (existing) return existing;
  const call: PartialToolCall = { index, id: "", name: "", arguments: "" };
  calls.push(call);
  return call;
}

/** True when the model said nothing and called nothing: worth asking again. */
export function isEmptyReply(reply: ReplyInProgress): boolean {
  return reply.text.trim() === "" && reply.toolCalls.length === 0;
}

/**
 * The finished reply in our shape. `idPrefix` names calls that came without an id; it is only
 * called for them.
 */
export function finishReply(reply: ReplyInProgress, idPrefix: () => string): ModelReply {
  const content: AssistantBlock[] = [];
  // Whitespace-only text is dropped: Anthropic-shaped transcripts may not hold empty text.
  if (reply.text.trim() !== "") content.push({ type: "text", text: reply.text });
  for (const [position, call] of reply.toolCalls.entries()) {
    const id = call.id === "" ? `${idPrefix()}_${position}` : call.id;
    content.push({ type: "tool_use", id, name: call.name, input: parseArguments(call.arguments) });
  }
  return {
    message: { role: "assistant", content },
    stopReason: toStopReason(reply.finishReason),
    rawStopReason: reply.finishReason,
    usage: reply.usage,
  };
}

/**
 * Parameterless tools often get "" as arguments, which means no input. Arguments that are not
 * JSON stay the raw string, so the toolbox answers with an error quoting it and runs nothing.
 */
function parseArguments(raw: string): unknown {
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
  return {
    ...emptyUsage(),
    input_tokens: usage.prompt_tokens ?? 0,
    output_tokens: usage.completion_tokens ?? 0,
    cache_read_input_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  };
}

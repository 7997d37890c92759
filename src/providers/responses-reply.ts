// Builds our assistant message from the events of a streamed Responses API reply. The reply is
// a list of output items, each announced (`response.output_item.added`), filled by deltas that
// name its `output_index` (text, refusal, call arguments, reasoning summary) and closed
// (`response.output_item.done`, carrying the whole item); `response.completed` or
// `response.incomplete` ends it with the status and usage, and `error` or `response.failed`
// reports a failure after the 200. There is no `[DONE]`. Event reference:
// https://developers.openai.com/api/docs/api-reference/responses-streaming

import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { ProviderError } from "../core/errors.js";
import { type AssistantBlock, emptyUsage, type StopReason, type Usage } from "../core/messages.js";
import { CONTEXT_OVERFLOW_CODE, type ServerContext, streamedFailure } from "./openai-errors.js";
import { openAIUsage, parseArguments } from "./openai-reply.js";
import type { ModelReply, StreamEvent } from "./provider.js";

type OutputItem =
  /** Kept whole as it was closed (id, summary, encrypted_content), to be sent back as it is. */
  | { type: "reasoning"; item: Record<string, unknown> | null; summary: string[] }
  | { type: "message"; text: string; refusal: string }
  | { type: "function_call"; callId: string; name: string; arguments: string }
  /**
   * A hosted web search (`web_search_call`), kept whole once closed, to be sent back as it is
   * (https://developers.openai.com/api/docs/guides/tools-web-search, output and citations).
   */
  | { type: "web_search_call"; item: Record<string, unknown> | null }
  /** Items of hosted tools we never ask for; nothing of them is kept. */
  | { type: "other" };

export interface ResponseInProgress {
  /** By output_index, the order the model wrote them in. */
  items: Map<number, OutputItem>;
  /** Set by the event that ends the reply; null while it streams. */
  status: string | null;
  incompleteReason: string | null;
  usage: Usage;
}

export function startResponse(): ResponseInProgress {
  return { items: new Map(), status: null, incompleteReason: null, usage: emptyUsage() };
}

/**
 * Adds one event to the reply and returns what to show the user as it arrives (answer text, or
 * reasoning summary as thinking), if anything. A failure reported in the stream is thrown.
 */
export function addEvent(
  reply: ResponseInProgress,
  event: ResponseStreamEvent,
  server: ServerContext,
): StreamEvent | null {
  switch (event.type) {
    case "response.output_item.added":
    case "response.output_item.done": {
      const closed = event.type === "response.output_item.done";
      const before = reply.items.get(event.output_index);
      reply.items.set(event.output_index, fromItem(event.item, before, closed));
      return null;
    }
    case "response.output_text.delta": {
      const message = itemAt(reply, event.output_index, "message");
      if (message) message.text += event.delta;
      return event.delta === "" ? null : { type: "text_delta", text: event.delta };
    }
    case "response.refusal.delta": {
      const message = itemAt(reply, event.output_index, "message");
      if (message) message.refusal += event.delta;
      return null;
    }
    case "response.function_call_arguments.delta": {
      const call = itemAt(reply, event.output_index, "function_call");
      if (call) call.arguments += event.delta;
      return null;
    }
    case "response.reasoning_summary_text.delta": {
      const reasoning = itemAt(reply, event.output_index, "reasoning");
      if (reasoning) {
        reasoning.summary[event.summary_index] =
          (reasoning.summary[event.summary_index] ?? "") + event.delta;
      }
      return event.delta === "" ? null : { type: "thinking_delta", text: event.delta };
    }
    case "response.completed":
    case "response.incomplete": {
      const { response } = event;
      // OpenAI documents only max_output_tokens and content_filter as reasons; a server that
      // ends the reply incomplete with the overflow code means what a failure with it means.
      const reason: string | null = response.incomplete_details?.reason ?? null;
      if (reason === CONTEXT_OVERFLOW_CODE)
        throw streamedFailure(reason, "the reply ended incomplete", server);
      reply.status = response.status ?? event.type.replace("response.", "");
      reply.incompleteReason = reason;
      if (response.usage) {
        reply.usage = openAIUsage({
          input: response.usage.input_tokens,
          output: response.usage.output_tokens,
          cacheRead: response.usage.input_tokens_details?.cached_tokens ?? 0,
          cacheWrite: response.usage.input_tokens_details?.cache_write_tokens ?? 0,
        });
      }
      return null;
    }
    case "response.failed": {
      const failure = event.response.error;
      throw streamedFailure(failure?.code, failure?.message ?? "the response failed", server);
    }
    case "error":
      throw streamedFailure(event.code, event.message, server);
    default:
      // Announcements (created, in_progress, content parts), text that repeats the deltas
      // (`*.done`), and the events of hosted tools: the items and deltas above hold it all.
      return null;
  }
}

/** An item as announced or closed. Closing keeps the deltas gathered when the item omits them. */
function fromItem(
  item: Extract<ResponseStreamEvent, { type: "response.output_item.added" }>["item"],
  before: OutputItem | undefined,
  closed: boolean,
): OutputItem {
  switch (item.type) {
    case "reasoning": {
      const summary = item.summary.map((part) => part.text);
      const gathered = before?.type === "reasoning" ? before.summary : [];
      // Only a closed item is whole, and with `store: false` only its encrypted content carries
      // the reasoning to the next request: an item without it cannot go back.
      const whole = closed && typeof item.encrypted_content === "string";
      const kept = whole ? (item as unknown as Record<string, unknown>) : null;
      return { type: "reasoning", item: kept, summary: summary.length > 0 ? summary : gathered };
    }
    case "message": {
      const text = item.content
        .map((part) => (part.type === "output_text" ? part.text : ""))
        .join("");
      const refusal = item.content
        .map((part) => (part.type === "refusal" ? part.refusal : ""))
        .join("");
      if (before?.type !== "message") return { type: "message", text, refusal };
      return { type: "message", text: text || before.text, refusal: refusal || before.refusal };
    }
    case "function_call": {
      const args = item.arguments || (before?.type === "function_call" ? before.arguments : "");
      return { type: "function_call", callId: item.call_id, name: item.name, arguments: args };
    }
    case "web_search_call":
      return { type: "web_search_call", item: closed ? { ...item } : null };
    default:
      return { type: "other" };
  }
}

function itemAt<Type extends OutputItem["type"]>(
  reply: ResponseInProgress,
  index: number,
  type: Type,
): Extract<OutputItem, { type: Type }> | undefined {
  const item = reply.items.get(index);
  return item?.type === type ? (item as Extract<OutputItem, { type: Type }>) : undefined;
}

/**
 * The finished reply in our shape, items in output order. A reasoning item the reply was cut
 * off in (never closed), or that came without encrypted content, is left out: it cannot go
 * back (its summary was shown as it streamed). A call cut
 * off by the output limit keeps its partial arguments: stop reason max_tokens tells the loop
 * not to run it.
 */
export function finishResponse(
  reply: ResponseInProgress,
  model: string,
  baseURL: string,
): ModelReply {
  if (reply.status === null) {
    throw new ProviderError("server", `The reply from ${baseURL} ended before the model finished.`);
  }
  const content: AssistantBlock[] = [];
  let refused = false;
  const ordered = [...reply.items].sort(([a], [b]) => a - b).map(([, item]) => item);
  for (const item of ordered) {
    switch (item.type) {
      case "reasoning": {
        if (item.item === null) break;
        const thinking = item.summary.filter((part) => part.trim() !== "").join("\n\n");
        content.push({
          type: "opaque",
          protocol: "responses",
          item: item.item,
          ...(thinking === "" ? {} : { thinking }),
        });
        break;
      }
      case "message":
        // Whitespace-only text is dropped: Anthropic-shaped transcripts may not hold empty text.
        if (item.text.trim() !== "") content.push({ type: "text", text: item.text });
        // A refusal is the model's answer: the user reads why.
        if (item.refusal.trim() !== "") content.push({ type: "text", text: item.refusal });
        refused ||= item.refusal.trim() !== "";
        break;
      case "function_call":
        content.push({
          type: "tool_use",
          id: item.callId,
          name: item.name,
          input: parseArguments(item.arguments),
        });
        break;
      case "web_search_call":
        // Shown as the web part's event (src/web/web-search.ts); cut off unclosed, it is left out.
        if (item.item) content.push({ type: "opaque", protocol: "responses", item: item.item });
        break;
      case "other":
        break;
    }
  }
  const calls = content.some((block) => block.type === "tool_use");
  const stopReason = toStopReason(reply, calls, refused);
  const rawStopReason = reply.incompleteReason
    ? `${reply.status} (${reply.incompleteReason})`
    : reply.status;
  return {
    message: { role: "assistant", content, model },
    stopReason,
    rawStopReason,
    usage: reply.usage,
  };
}

function toStopReason(reply: ResponseInProgress, calls: boolean, refused: boolean): StopReason {
  if (reply.status === "incomplete") {
    if (reply.incompleteReason === "max_output_tokens") return "max_tokens";
    if (reply.incompleteReason === "content_filter") return "refusal";
    return "unknown";
  }
  if (reply.status !== "completed") return "unknown";
  if (refused) return "refusal";
  return calls ? "tool_use" : "end_turn";
}

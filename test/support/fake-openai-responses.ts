// A scripted reply written as the events of a streamed Responses API reply, in the order the
// real API sends them: response.created and in_progress; a reasoning item (with its summary
// when the request asks for one, and its encrypted content when it asks for that); each
// message and function call as an item announced, filled by deltas and closed; then
// response.completed, or response.incomplete when the output limit cut the reply. Every event
// is an SSE message with `event:` naming its type and a `sequence_number`. The fake is a
// reasoning model: every reply starts with a reasoning item, recorded here so that the
// request validator can check it comes back unmodified and with the items it led to.

import { createHmac, randomUUID } from "node:crypto";
import { countedUsage, type FakeBlock, type FakeReply, split } from "./fake-openai-chunks.js";
import { citations, type IssuedSearches, searchItems } from "./fake-openai-search.js";

/** The summary every reasoning item carries when the request asks for summaries. */
export const FAKE_REASONING_SUMMARY = "Working out the next step.";

/** A reasoning item the fake sent: what must come back, and the items it led to. */
export interface IssuedReasoning {
  encryptedContent: string;
  model: string;
  /** Ids of the items that followed it in its reply (messages and function calls). */
  followers: string[];
}

/** Every reasoning item any request got, by id, and for each item id its reasoning item. */
export interface ReasoningRegistry {
  issued: Map<string, IssuedReasoning>;
  ledBy: Map<string, string>;
  /** The hosted web searches sent (fake-openai-search.ts). */
  searches: IssuedSearches;
}

export function newReasoningRegistry(): ReasoningRegistry {
  return { issued: new Map(), ledBy: new Map(), searches: new Map() };
}

export interface ResponsesEvents {
  /** Each event as [type, data]. */
  events: [string, object][];
  /** How many events reach the middle of the last item, for cut-off faults. */
  middleOfLastItem: number;
}

const SECRET = "fake-openai-reasoning-key";

/**
 * The events of one reply to `body`. `promptTokens` is the request's size when the server
 * counts tokens; usage is the reply's own, else that and the reply's length, else 20 and 10.
 */
export function responsesEvents(
  reply: FakeReply,
  body: Record<string, unknown>,
  registry: ReasoningRegistry,
  promptTokens: number | undefined,
): ResponsesEvents {
  const model = String(body.model);
  const responseId = `resp_${randomUUID().replaceAll("-", "")}`;
  const events: [string, object][] = [];
  const output: Record<string, unknown>[] = [];
  let middleOfLastItem = 0;
  const emit = (type: string, data: object) => events.push([type, { type, ...data }]);
  const shell = (status: string, extra: object = {}) => ({
    id: responseId,
    object: "response",
    created_at: 1_700_000_000,
    model,
    status,
    output,
    store: false,
    ...extra,
  });
  emit("response.created", { response: shell("in_progress", { output: [] }) });
  emit("response.in_progress", { response: shell("in_progress", { output: [] }) });

  const cutOff = reply.stopReason === "max_tokens";
  const reasoningId = `rs_${randomUUID().replaceAll("-", "")}`;
  const followers: string[] = [];
  const wantsSummary = typeof (body.reasoning as { summary?: unknown })?.summary === "string";
  const wantsEncrypted = (body.include as unknown[] | undefined)?.includes(
    "reasoning.encrypted_content",
  );
  const encryptedContent = seal(reasoningId, model);
  registry.issued.set(reasoningId, { encryptedContent, model, followers });

  let index = 0;
  const reasoningItem = {
    id: reasoningId,
    type: "reasoning",
    summary: wantsSummary ? [{ type: "summary_text", text: FAKE_REASONING_SUMMARY }] : [],
    ...(wantsEncrypted ? { encrypted_content: encryptedContent } : {}),
  };
  emit("response.output_item.added", {
    output_index: index,
    item: { id: reasoningId, type: "reasoning", summary: [] },
  });
  if (wantsSummary) {
    const at = { item_id: reasoningId, output_index: index, summary_index: 0 };
    emit("response.reasoning_summary_part.added", {
      ...at,
      part: { type: "summary_text", text: "" },
    });
    for (const piece of split(FAKE_REASONING_SUMMARY)) {
      emit("response.reasoning_summary_text.delta", { ...at, delta: piece });
    }
    emit("response.reasoning_summary_text.done", { ...at, text: FAKE_REASONING_SUMMARY });
    emit("response.reasoning_summary_part.done", {
      ...at,
      part: { type: "summary_text", text: FAKE_REASONING_SUMMARY },
    });
  }
  emit("response.output_item.done", { output_index: index, item: reasoningItem });
  output.push(reasoningItem);

  for (const item of searchItems(reply, body, registry.searches)) {
    index += 1;
    const id = String(item.id);
    followers.push(id);
    registry.ledBy.set(id, reasoningId);
    const at = { item_id: id, output_index: index };
    const started = {
      id,
      type: "web_search_call",
      status: "in_progress",
      action: { type: "search" },
    };
    emit("response.output_item.added", { output_index: index, item: started });
    for (const step of ["in_progress", "searching", "completed"]) {
      emit(`response.web_search_call.${step}`, at);
    }
    emit("response.output_item.done", { output_index: index, item });
    output.push(item);
  }

  const blocks = orderedBlocks(reply.content);
  for (const [position, block] of blocks.entries()) {
    index += 1;
    const last = position === blocks.length - 1;
    const id = block.type === "text" ? messageId() : `fc_${randomUUID().replaceAll("-", "")}`;
    followers.push(id);
    registry.ledBy.set(id, reasoningId);
    if (block.type === "text") {
      const refusal = reply.stopReason === "refusal";
      const part = refusal ? "refusal" : "output_text";
      const pieces = cutPieces(block.text, cutOff && last);
      const at = { item_id: id, output_index: index, content_index: 0 };
      emit("response.output_item.added", {
        output_index: index,
        item: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
      });
      const empty = refusal
        ? { type: part, refusal: "" }
        : { type: part, text: "", annotations: [] };
      emit("response.content_part.added", { ...at, part: empty });
      middleOfLastItem = events.length + Math.max(1, Math.ceil(pieces.length / 2));
      for (const piece of pieces) {
        emit(refusal ? "response.refusal.delta" : "response.output_text.delta", {
          ...at,
          delta: piece,
          ...(refusal ? {} : { logprobs: [] }),
        });
      }
      if (cutOff && last) break;
      const annotations = refusal ? [] : citations(reply, block.text);
      for (const [annotationIndex, annotation] of annotations.entries()) {
        emit("response.output_text.annotation.added", {
          ...at,
          annotation_index: annotationIndex,
          annotation,
        });
      }
      const whole = refusal
        ? { type: part, refusal: block.text }
        : { type: part, text: block.text, annotations };
      emit(refusal ? "response.refusal.done" : "response.output_text.done", {
        ...at,
        ...(refusal ? { refusal: block.text } : { text: block.text, logprobs: [] }),
      });
      emit("response.content_part.done", { ...at, part: whole });
      const item = {
        id,
        type: "message",
        status: "completed",
        role: "assistant",
        content: [whole],
      };
      emit("response.output_item.done", { output_index: index, item });
      output.push(item);
      continue;
    }
    const args = "partialJson" in block ? block.partialJson : JSON.stringify(block.input);
    const head = { id, type: "function_call", call_id: block.id, name: block.name };
    emit("response.output_item.added", {
      output_index: index,
      item: { ...head, arguments: "", status: "in_progress" },
    });
    const pieces = cutPieces(args, cutOff && last);
    middleOfLastItem = events.length + Math.max(1, Math.ceil(pieces.length / 2));
    for (const piece of pieces) {
      emit("response.function_call_arguments.delta", {
        item_id: id,
        output_index: index,
        delta: piece,
      });
    }
    if (cutOff && last) break;
    emit("response.function_call_arguments.done", {
      item_id: id,
      output_index: index,
      name: block.name,
      arguments: args,
    });
    const item = { ...head, arguments: args, status: "completed" };
    emit("response.output_item.done", { output_index: index, item });
    output.push(item);
  }

  const usage = usageOf(reply, promptTokens);
  if (cutOff) {
    const details = { incomplete_details: { reason: "max_output_tokens" }, usage };
    emit("response.incomplete", { response: shell("incomplete", details) });
  } else {
    emit("response.completed", {
      response: shell("completed", { incomplete_details: null, usage }),
    });
  }
  for (const [sequence, [, data]] of events.entries()) {
    Object.assign(data, { sequence_number: sequence });
  }
  return { events, middleOfLastItem: middleOfLastItem || events.length - 1 };
}

/** The text in pieces; only the first half of them when the output limit cuts it off. */
function cutPieces(text: string, cut: boolean): string[] {
  const pieces = split(text);
  return cut ? pieces.slice(0, Math.ceil(pieces.length / 2)) : pieces;
}

/** Messages first, then calls, as the Chat fake sends them (a model's usual order). */
function orderedBlocks(content: FakeBlock[]): FakeBlock[] {
  return [
    ...content.filter((block) => block.type === "text"),
    ...content.filter((block) => block.type === "tool_use"),
  ];
}

function messageId(): string {
  return `msg_${randomUUID().replaceAll("-", "")}`;
}

/** Stands in for OpenAI's encryption: opaque, and only this fake can tell it was changed. */
function seal(id: string, model: string): string {
  const payload = Buffer.from(JSON.stringify({ id, model })).toString("base64");
  const mac = createHmac("sha256", SECRET).update(payload).digest("base64url");
  return `gAAAAA${payload}.${mac}`;
}

function usageOf(reply: FakeReply, promptTokens: number | undefined) {
  const counted = countedUsage(reply, promptTokens);
  return {
    input_tokens: counted.prompt_tokens,
    input_tokens_details: { cached_tokens: counted.cached_tokens ?? 0 },
    output_tokens: counted.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: counted.prompt_tokens + counted.completion_tokens,
  };
}

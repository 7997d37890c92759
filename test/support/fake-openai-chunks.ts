// A scripted reply written as the chunks of a streamed Chat Completion: a role chunk, the text
// in small pieces, each tool call as a head (id, name) and its arguments in fragments, the
// finish reason, and usage. Quirks reproduce how other compatible servers split tool calls.

export type FakeBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  /** A tool call whose arguments are sent exactly as given: "", cut off, or invalid JSON. */
  | { type: "tool_use"; id: string; name: string; partialJson: string };

export type ToolCallQuirk =
  /** No call carries an id. */
  | "no_ids"
  /** Chunks after a call's first carry an empty name (and no id). */
  | "empty_name_later"
  /** Every chunk repeats the call's id and name. */
  | "repeat_id_and_name"
  /** Every call is sent whole, in one chunk. */
  | "whole_calls"
  /** Every parallel call is sent at index 0, told apart only by its id. */
  | "all_at_index_zero"
  /** Every call carries the first call's id, each at its own index (buggy tool parsers). */
  | "same_id_twice"
  /** Chunks after a call's first carry a new id each (as Poolside's API, vLLM's gpt-oss). */
  | "new_id_later"
  /** A call's first chunk has an empty name, and the name comes in a chunk of its own. */
  | "name_later"
  /** A call's first chunk has no id; it comes with every other chunk after it. */
  | "id_on_some_deltas"
  /** Reasoning streams as `reasoning` (vLLM, Ollama, OpenRouter), not `reasoning_content`. */
  | "reasoning_field";

export interface FakeReply {
  content: FakeBlock[];
  /** Reasoning streamed before the answer, as DeepSeek's `reasoning_content`. */
  reasoning?: string;
  /** In Anthropic's words, as for the fake Anthropic server; mapped to a finish_reason. */
  stopReason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal";
  /** A finish_reason sent as it is (null: none at all), for quirks beyond the mapping. */
  finish?: string | null;
  quirks?: ToolCallQuirk[];
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
  /** A pause before each chunk, for a model that generates slowly. */
  chunkDelayMs?: number;
  /**
   * Responses only: the hosted web searches run before the answer, each a `web_search_call`
   * item, and the answer's text cites the first URL found (fake-openai-search.ts).
   */
  searches?: { query: string; urls: string[] }[];
}

const FINISH_REASONS = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  refusal: "content_filter",
};

/** Characters of text or arguments per chunk, small so every reply arrives in pieces. */
const PIECE = 5;

/**
 * The chunks, and how many of them reach the middle of the last block (for cut-off faults).
 * Usage is the reply's own, else `promptTokens` and the reply's length when the server counts
 * tokens, else 20 and 10.
 */
export function replyChunks(
  reply: FakeReply,
  includeUsage: boolean,
  promptTokens?: number,
): { chunks: object[]; middleOfLastBlock: number } {
  const quirks = new Set(reply.quirks ?? []);
  const deltas: object[] = [{ role: "assistant", content: "" }];
  let middleOfLastBlock = deltas.length;
  const cutInMiddle = (pieces: number) => {
    middleOfLastBlock = deltas.length + Math.max(1, Math.ceil(pieces / 2));
  };
  const reasoningField = quirks.has("reasoning_field") ? "reasoning" : "reasoning_content";
  for (const piece of split(reply.reasoning ?? "")) deltas.push({ [reasoningField]: piece });
  const texts = reply.content.filter((block) => block.type === "text");
  for (const block of texts) {
    const pieces = split(block.text);
    cutInMiddle(pieces.length);
    for (const piece of pieces) deltas.push({ content: piece });
  }
  const calls = reply.content.filter((block) => block.type === "tool_use");
  for (const [position, call] of calls.entries()) {
    const index = quirks.has("all_at_index_zero") ? 0 : position;
    const id = quirks.has("same_id_twice") ? (calls[0] as FakeBlock & { id: string }).id : call.id;
    const headId = quirks.has("no_ids") || quirks.has("id_on_some_deltas") ? {} : { id };
    const head = { index, ...headId, type: "function" };
    const args = "partialJson" in call ? call.partialJson : JSON.stringify(call.input);
    const name = quirks.has("name_later") ? "" : call.name;
    if (quirks.has("whole_calls")) {
      cutInMiddle(0);
      deltas.push({ tool_calls: [{ ...head, function: { name, arguments: args } }] });
      if (name === "") deltas.push({ tool_calls: [{ index, function: { name: call.name } }] });
      continue;
    }
    const pieces = split(args);
    deltas.push({ tool_calls: [{ ...head, function: { name, arguments: "" } }] });
    if (name === "") deltas.push({ tool_calls: [{ index, function: { name: call.name } }] });
    cutInMiddle(pieces.length);
    for (const [n, piece] of pieces.entries()) {
      const laterId = quirks.has("new_id_later")
        ? { id: `${id}-${n + 1}` }
        : quirks.has("id_on_some_deltas")
          ? n % 2 === 1
            ? { id }
            : {}
          : undefined;
      const later = quirks.has("repeat_id_and_name")
        ? { ...head, ...laterId, function: { name: call.name, arguments: piece } }
        : quirks.has("empty_name_later")
          ? { index, ...laterId, type: "function", function: { name: "", arguments: piece } }
          : { index, ...laterId, function: { arguments: piece } };
      deltas.push({ tool_calls: [later] });
    }
  }

  const chunks = deltas.map((delta) => chunk([{ index: 0, delta, finish_reason: null }]));
  const finish = finishReason(reply, calls.length > 0);
  if (finish !== null) chunks.push(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
  if (includeUsage) chunks.push({ ...chunk([]), usage: usageOf(reply, promptTokens) });
  return { chunks, middleOfLastBlock };
}

function finishReason(reply: FakeReply, hasCalls: boolean): string | null {
  if (reply.finish !== undefined) return reply.finish;
  if (reply.stopReason) return FINISH_REASONS[reply.stopReason];
  return hasCalls ? "tool_calls" : "stop";
}

/**
 * The reply's usage: its own, else `promptTokens` and the reply's length when the server
 * counts tokens, else 20 and 10. Both protocols of the fake report it, each in its own words.
 */
export function countedUsage(
  reply: FakeReply,
  promptTokens: number | undefined,
): NonNullable<FakeReply["usage"]> {
  return (
    reply.usage ??
    (promptTokens === undefined
      ? { prompt_tokens: 20, completion_tokens: 10 }
      : { prompt_tokens: promptTokens, completion_tokens: outputTokens(reply) })
  );
}

function usageOf(reply: FakeReply, promptTokens: number | undefined) {
  const usage = countedUsage(reply, promptTokens);
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
  };
}

/** A token for every four characters of text and tool arguments, at least one. */
function outputTokens(reply: FakeReply): number {
  let chars = 0;
  for (const block of reply.content) {
    if (block.type === "text") chars += block.text.length;
    else
      chars +=
        "partialJson" in block
          ? block.partialJson.length
          : (JSON.stringify(block.input) ?? "").length;
  }
  return Math.max(1, Math.ceil(chars / 4));
}

function chunk(choices: object[]): object {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "fake-model",
    choices,
  };
}

/** Text in pieces of a few characters, so that every reply arrives in many deltas. */
export function split(text: string): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += PIECE) pieces.push(text.slice(at, at + PIECE));
  return pieces;
}

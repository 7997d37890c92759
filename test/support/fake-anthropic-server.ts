// A local stand-in for the Anthropic Messages API: POST /v1/messages with `stream: true`,
// answered as real SSE. Each request takes the next scripted turn: a reply, or a fault the
// real service produces (HTTP errors with retry-after, stalls, resets, SSE error events).
// Every request is recorded and validated first, and an invalid one gets the same 400 the
// real API gives, without using up a turn. So does a request too long for the context window,
// when one is set. An `intercept` can answer chosen requests (such as the agent's requests for
// a summary) whenever they come, outside the script. GET /_fake/requests returns the record as
// JSON, for tests that run the fake in another process (see fake-anthropic-main.ts).

import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type CacheUsage, countTokens, PromptCache } from "./fake-anthropic-cache.js";
import {
  checkThinking,
  redactedData,
  shownThinking,
  signThinking,
  thinkingOn,
} from "./fake-anthropic-thinking.js";
import { validateRequest } from "./fake-anthropic-validation.js";

export interface FakeText {
  type: "text";
  text: string;
}

export interface FakeToolUse {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** A tool call whose input JSON is sent exactly as given, for inputs cut off by max_tokens. */
export interface FakeCutToolUse {
  type: "tool_use";
  id: string;
  name: string;
  partialJson: string;
}

/**
 * The model's thinking, signed by the fake for the request's model. `cutOff` ends the stream
 * inside it, before the signature, as max_tokens does mid-thinking.
 */
export interface FakeThinking {
  type: "thinking";
  thinking: string;
  cutOff?: boolean;
}

export interface FakeRedactedThinking {
  type: "redacted_thinking";
}

/** A call of a server tool (web search), which the API ran itself; its result follows it. */
export interface FakeServerToolUse {
  type: "server_tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** A web search's results as the API returns them, sent whole in the block's start. */
export interface FakeSearchResult {
  type: "web_search_tool_result";
  tool_use_id: string;
  content: Record<string, unknown>[] | Record<string, unknown>;
}

export type FakeBlock =
  | FakeText
  | FakeToolUse
  | FakeCutToolUse
  | FakeThinking
  | FakeRedactedThinking
  | FakeServerToolUse
  | FakeSearchResult;

export interface FakeReply {
  kind: "reply";
  content: FakeBlock[];
  /** Defaults to tool_use when the content has a tool call, else end_turn. */
  stopReason?: string;
  /** Thinks this long before the content, sending only a ping every 100 ms meanwhile. */
  pauseMs?: number;
  /** Pauses this long after the reply's first block (its thinking), pinging meanwhile. */
  thinkMs?: number;
}

export type FakeTurn =
  | FakeReply
  | {
      kind: "http_error";
      status: number;
      errorType: string;
      message: string;
      headers?: Record<string, string>;
    }
  /** Sends the content up to the middle of its last block, then nothing more. */
  | { kind: "stall"; content: FakeBlock[] }
  /** Sends the content up to the middle of its last block, then destroys the socket. */
  | { kind: "reset"; content: FakeBlock[] }
  /** Sends the content up to the middle of its last block, then an SSE `error` event. */
  | { kind: "sse_error"; content: FakeBlock[]; errorType: string; message: string };

export interface RecordedBlock {
  type: string;
  cache_control?: unknown;
  [field: string]: unknown;
}

export interface RecordedBody {
  model: string;
  max_tokens: number;
  stream?: boolean;
  system?: string | RecordedBlock[];
  tools?: { name: string; input_schema: unknown; cache_control?: unknown }[];
  messages: { role: "user" | "assistant"; content: string | RecordedBlock[] }[];
  thinking?: { type?: string; display?: string };
  output_config?: { effort?: string };
}

export interface RecordedRequest {
  body: RecordedBody;
  headers: IncomingHttpHeaders;
  /** performance.now() when the request arrived, for measuring waits between attempts. */
  receivedAt: number;
  /** The HTTP status the fake answered with. */
  status: number;
  /** The length of the request body in bytes, as it came over the wire. */
  bytesReceived: number;
  /** The input's size in tokens (see countTokens), once the request has passed validation. */
  tokens?: number;
  /** How the prompt cache split the input, for a request that was answered with a stream. */
  usage?: CacheUsage;
}

export interface ScriptOptions {
  /** Starts the script over when it runs out. */
  cycle?: boolean;
  /**
   * Sees every valid request that fits the context window before the script does; a turn it
   * returns is the answer, and the scripted turns are left for the next requests.
   */
  intercept?: (body: RecordedBody) => FakeTurn | undefined;
}

export interface FakeAnthropicOptions {
  /** The model's context window in tokens; longer requests get the API's 400. */
  contextWindow?: number;
}

export interface FakeAnthropic {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the remaining turns. */
  script(turns: FakeTurn[], options?: ScriptOptions): void;
  /** Sets the context window from the next request on; undefined lifts the limit. */
  setContextWindow(tokens: number | undefined): void;
  close(): Promise<void>;
}

export async function startFakeAnthropic(
  options: FakeAnthropicOptions = {},
): Promise<FakeAnthropic> {
  const requests: RecordedRequest[] = [];
  const cache = new PromptCache();
  let turns: FakeTurn[] = [];
  let next = 0;
  let cycle = false;
  let intercept: ScriptOptions["intercept"];
  let contextWindow = options.contextWindow;

  const server = createServer(async (req, res) => {
    if (req.method === "GET" && req.url === "/_fake/requests") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(requests));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    let body: RecordedBody;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendError(res, 400, "invalid_request_error", "The request body is not valid JSON.");
    }
    const record: RecordedRequest = {
      body,
      headers: req.headers,
      receivedAt: performance.now(),
      status: 200,
      bytesReceived: raw.length,
    };
    requests.push(record);
    const answer = (status: number, type: string, message: string) => {
      record.status = status;
      sendError(res, status, type, message);
    };
    if (req.method !== "POST" || req.url !== "/v1/messages") {
      return answer(404, "not_found_error", `Not found: ${req.method} ${req.url}`);
    }
    // SDK 1.14 sends the key as a bearer token; older clients and curl use x-api-key.
    if (!req.headers["x-api-key"] && !req.headers.authorization?.startsWith("Bearer ")) {
      return answer(401, "authentication_error", "x-api-key header is required");
    }
    const invalid = validateRequest(body) ?? checkThinking(body);
    if (invalid) return answer(400, "invalid_request_error", invalid);
    if (body.stream !== true) {
      return answer(400, "invalid_request_error", "the fake server only answers `stream: true`");
    }
    record.tokens = countTokens(body);
    const tooLong =
      contextWindow === undefined ? null : overflow(record.tokens, body, contextWindow);
    if (tooLong) return answer(400, "invalid_request_error", tooLong);
    let turn = intercept?.(body);
    if (!turn) {
      if (cycle && next === turns.length) next = 0;
      turn = turns[next];
      if (!turn) {
        const message = `the fake server has no scripted turn for request ${requests.length}`;
        return answer(400, "invalid_request_error", message);
      }
      next += 1;
    }
    if (turn.kind === "http_error") {
      record.status = turn.status;
      return sendError(res, turn.status, turn.errorType, turn.message, turn.headers);
    }
    record.usage = cache.account(body);
    streamTurn(res, withThinking(turn, body, requests.length), body, requests.length, record.usage);
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(newTurns, options = {}) {
      turns = [...newTurns];
      next = 0;
      cycle = options.cycle ?? false;
      intercept = options.intercept;
    },
    setContextWindow(tokens) {
      contextWindow = tokens;
    },
    close() {
      // Stalled streams stay open until the client gives up; don't wait for them.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The API's words for a request that does not fit the window, or null when it fits. */
function overflow(total: number, body: RecordedBody, window: number): string | null {
  if (total > window) return `prompt is too long: ${total} tokens > ${window} maximum`;
  if (total + body.max_tokens > window) {
    return (
      `input length and \`max_tokens\` exceed context limit: ${total} + ${body.max_tokens} > ` +
      `${window}, decrease input length or \`max_tokens\` and try again`
    );
  }
  return null;
}

function sendError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
) {
  const requestId = `req_fake_${Math.random().toString(36).slice(2, 10)}`;
  res.writeHead(status, {
    "content-type": "application/json",
    "request-id": requestId,
    ...headers,
  });
  res.end(JSON.stringify({ type: "error", error: { type, message }, request_id: requestId }));
}

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

type StreamedTurn = Exclude<FakeTurn, { kind: "http_error" }>;

/** A model that thinks starts every reply with thinking, unless the script wrote its own. */
function withThinking(turn: StreamedTurn, body: RecordedBody, number: number): StreamedTurn {
  const first = turn.content[0];
  const scripted = first?.type === "thinking" || first?.type === "redacted_thinking";
  if (scripted || !thinkingOn(body)) return turn;
  const thinking: FakeThinking = { type: "thinking", thinking: `Working out request ${number}.` };
  return { ...turn, content: [thinking, ...turn.content] };
}

function streamTurn(
  res: ServerResponse,
  turn: StreamedTurn,
  body: RecordedBody,
  number: number,
  usage: CacheUsage,
) {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "request-id": `req_fake_${number}`,
  });
  const { events, middleOfLastBlock } = replyEvents(turn, body, number, usage);
  const send = (event: SseEvent, done?: () => void) =>
    res.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`, done);
  switch (turn.kind) {
    case "reply": {
      // Everything up to the pause: the message's start, or with thinkMs its first block too.
      const firstBlockEnd = events.findIndex((event) => event.event === "content_block_stop");
      const pauseAt = turn.thinkMs === undefined ? 1 : firstBlockEnd + 1;
      for (const event of events.slice(0, pauseAt)) send(event);
      const rest = events.slice(pauseAt);
      const pinging = setInterval(() => send({ event: "ping", data: { type: "ping" } }), 100);
      const finish = setTimeout(
        () => {
          clearInterval(pinging);
          for (const event of rest) send(event);
          res.end();
        },
        turn.thinkMs ?? turn.pauseMs ?? 0,
      );
      res.on("close", () => {
        clearInterval(pinging);
        clearTimeout(finish);
      });
      return;
    }
    case "stall":
      for (const event of events.slice(0, middleOfLastBlock)) send(event);
      return;
    case "reset": {
      const sent = events.slice(0, middleOfLastBlock);
      sent.forEach((event, index) => {
        send(event, index === sent.length - 1 ? () => res.socket?.destroy() : undefined);
      });
      return;
    }
    case "sse_error":
      for (const event of events.slice(0, middleOfLastBlock)) send(event);
      send({
        event: "error",
        data: { type: "error", error: { type: turn.errorType, message: turn.message } },
      });
      res.end();
      return;
  }
}

/** The whole SSE conversation for a reply, and where the middle of its last block is. */
function replyEvents(turn: StreamedTurn, body: RecordedBody, number: number, usage: CacheUsage) {
  const model = body.model;
  const events: SseEvent[] = [];
  const push = (event: string, data: Record<string, unknown>) => events.push({ event, data });
  push("message_start", {
    type: "message_start",
    message: {
      id: `msg_fake_${number}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  push("ping", { type: "ping" });
  let middleOfLastBlock = events.length;
  let outputChars = 0;
  for (const [index, block] of turn.content.entries()) {
    const blockEvents = blockStream(block, body, number);
    outputChars += blockEvents.chars;
    push("content_block_start", {
      type: "content_block_start",
      index,
      content_block: blockEvents.start,
    });
    middleOfLastBlock = events.length + Math.max(1, Math.ceil(blockEvents.deltas.length / 2));
    for (const delta of blockEvents.deltas) {
      push("content_block_delta", { type: "content_block_delta", index, delta });
    }
    push("content_block_stop", { type: "content_block_stop", index });
  }
  const hasToolUse = turn.content.some((block) => block.type === "tool_use");
  const stopReason =
    (turn.kind === "reply" ? turn.stopReason : undefined) ?? (hasToolUse ? "tool_use" : "end_turn");
  push("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: Math.max(1, Math.ceil(outputChars / 4)) },
  });
  push("message_stop", { type: "message_stop" });
  return { events, middleOfLastBlock };
}

/** How one block of a reply streams: its start, its deltas, and the characters it costs. */
function blockStream(block: FakeBlock, body: RecordedBody, number: number) {
  switch (block.type) {
    case "text":
      return {
        start: { type: "text", text: "" },
        deltas: split(block.text, 4).map((text) => ({ type: "text_delta", text })),
        chars: block.text.length,
      };
    case "tool_use": {
      const whole = "partialJson" in block ? block.partialJson : JSON.stringify(block.input);
      return {
        start: { type: "tool_use", id: block.id, name: block.name, input: {} },
        deltas: split(whole, 4).map((json) => ({ type: "input_json_delta", partial_json: json })),
        chars: whole.length,
      };
    }
    case "thinking": {
      const shown = shownThinking(body, block.thinking);
      const deltas: Record<string, unknown>[] = split(shown, 3).map((thinking) => ({
        type: "thinking_delta",
        thinking,
      }));
      if (!block.cutOff) {
        deltas.push({ type: "signature_delta", signature: signThinking(body.model, shown) });
      }
      return {
        start: { type: "thinking", thinking: "", signature: "" },
        deltas,
        chars: block.thinking.length,
      };
    }
    case "redacted_thinking":
      return {
        start: { type: "redacted_thinking", data: redactedData(body.model, number) },
        deltas: [],
        chars: 40,
      };
    case "server_tool_use": {
      const whole = JSON.stringify(block.input);
      return {
        start: { type: "server_tool_use", id: block.id, name: block.name, input: {} },
        deltas: split(whole, 2).map((json) => ({ type: "input_json_delta", partial_json: json })),
        chars: whole.length,
      };
    }
    case "web_search_tool_result":
      return { start: block, deltas: [], chars: 0 };
  }
}

/** Splits text into at most `parts` pieces, so deltas arrive in several chunks. */
function split(text: string, parts: number): string[] {
  if (text === "") return [];
  const size = Math.ceil(text.length / parts);
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

export const text = (value: string): FakeText => ({ type: "text", text: value });

export const toolUse = (id: string, name: string, input: Record<string, unknown>): FakeToolUse => ({
  type: "tool_use",
  id,
  name,
  input,
});

export const thinking = (value: string): FakeThinking => ({ type: "thinking", thinking: value });

/** A web search the API ran: its call, then its results (title, url, encrypted content). */
export const webSearch = (
  id: string,
  query: string,
  results: { title: string; url: string }[],
): [FakeServerToolUse, FakeSearchResult] => [
  { type: "server_tool_use", id, name: "web_search", input: { query } },
  {
    type: "web_search_tool_result",
    tool_use_id: id,
    content: results.map((result, index) => ({
      type: "web_search_result",
      ...result,
      encrypted_content: `enc-${id}-${index}-${Buffer.from(result.url).toString("base64")}`,
      page_age: null,
    })),
  },
];

export const reply = (...content: FakeBlock[]): FakeReply => ({ kind: "reply", content });

export const httpError = (
  status: number,
  errorType: string,
  message: string,
  headers?: Record<string, string>,
): FakeTurn => ({ kind: "http_error", status, errorType, message, headers });

export const overloaded = (headers?: Record<string, string>) =>
  httpError(529, "overloaded_error", "Overloaded", headers);

// A Chat Completions server on 127.0.0.1 that answers from a script, one turn per request,
// streaming Server-Sent Events the way OpenAI does. Turns can reproduce the quirks of other
// compatible servers and the faults of real networks. It records every request and rejects
// invalid transcripts with a 400, like the real API (see chat-request-validator.ts).

import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { AssistantBlock } from "../../src/messages.js";
import { problemWithRequest } from "./chat-request-validator.js";

/** A tool call written exactly as the server sends it, for arguments that are not our JSON. */
export interface RawToolCall {
  type: "raw_tool_call";
  id?: string;
  name: string;
  arguments: string;
}

/** How a server splits tool calls into chunks, beyond what OpenAI does. */
export type ToolCallQuirk =
  /** No call carries an id. */
  | "no_ids"
  /** Chunks after the first carry an empty name (and still no id). */
  | "empty_name_later"
  /** Every chunk repeats the call's id and name. */
  | "repeat_id_and_name"
  /** Every call is sent whole, in one chunk. */
  | "whole_calls"
  /** Every parallel call is sent at index 0, told apart only by its id. */
  | "all_at_index_zero";

export interface FakeReply {
  /** Text and tool_use blocks in our shape (inputs are sent as JSON), or raw tool calls. */
  content: Array<AssistantBlock | RawToolCall>;
  /** Default: "tool_calls" when the reply has tool calls, else "stop". */
  finish?: string | null;
  quirks?: ToolCallQuirk[];
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
}

export type FakeFault =
  | { fault: "http"; status: number; message?: string; code?: string; retryAfter?: number }
  /** A 200 whose event stream ends before a single chunk. */
  | { fault: "no_chunks" }
  /** Sends the first chunks of the reply, then nothing more until the client gives up. */
  | { fault: "stall"; reply: FakeReply; afterChunks: number }
  /** Sends the first chunks of the reply, then drops the connection. */
  | { fault: "reset"; reply: FakeReply; afterChunks: number }
  /** Sends the first chunks of the reply, then an error event in the stream. */
  | { fault: "stream_error"; reply: FakeReply; afterChunks: number; message: string };

export interface RecordedRequest {
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

export type FakeTurn =
  | FakeReply
  | FakeFault
  | ((request: RecordedRequest) => FakeReply | FakeFault);

export interface FakeOpenAIServer {
  /** The base URL to give the SDK, ending in /v1. */
  url: string;
  /** Every request received, valid or not, in order. */
  requests: RecordedRequest[];
  /** Why each rejected request was rejected. */
  rejections: string[];
  close(): Promise<void>;
}

/** Characters of text or arguments per chunk, small so every reply arrives in pieces. */
const FRAGMENT = 5;

export async function startFakeOpenAIServer(turns: FakeTurn[]): Promise<FakeOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const rejections: string[] = [];
  const sockets = new Set<Socket>();
  let nextTurn = 0;

  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const part of req) raw += part;
    const request: RecordedRequest = { body: JSON.parse(raw || "{}"), headers: req.headers };
    requests.push(request);
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      return sendError(res, 404, `Unknown request URL: ${req.method} ${req.url}`);
    }
    const problem = problemWithRequest(request.body);
    if (problem) {
      rejections.push(problem);
      return sendError(res, 400, problem);
    }
    const turn = turns[nextTurn];
    nextTurn += 1;
    if (!turn) return sendError(res, 500, `the script has no turn for request ${nextTurn}`);
    const step = typeof turn === "function" ? turn(request) : turn;
    const includeUsage =
      (request.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage ===
      true;
    await play(res, step, includeUsage);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    rejections,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function play(res: ServerResponse, step: FakeReply | FakeFault, includeUsage: boolean) {
  if (!("fault" in step)) {
    startEvents(res);
    for (const chunk of chunksOf(step, includeUsage)) res.write(event(chunk));
    res.end("data: [DONE]\n\n");
    return;
  }
  switch (step.fault) {
    case "http": {
      const headers: Record<string, string> = {};
      if (step.retryAfter !== undefined) headers["retry-after"] = String(step.retryAfter);
      return sendError(
        res,
        step.status,
        step.message ?? `error ${step.status}`,
        step.code,
        headers,
      );
    }
    case "no_chunks":
      startEvents(res);
      res.end();
      return;
    case "stall":
    case "reset":
    case "stream_error": {
      startEvents(res);
      for (const chunk of chunksOf(step.reply, includeUsage).slice(0, step.afterChunks)) {
        res.write(event(chunk));
      }
      if (step.fault === "reset") {
        // Let the chunks written so far reach the client before the connection drops.
        await new Promise((resolve) => setTimeout(resolve, 20));
        res.socket?.destroy();
      }
      if (step.fault === "stream_error") {
        res.end(event({ error: { message: step.message, type: "server_error", code: null } }));
      }
      return;
    }
  }
}

/** The reply as the chunks OpenAI would stream: role, text pieces, tool calls, finish, usage. */
export function chunksOf(reply: FakeReply, includeUsage: boolean): object[] {
  const quirks = new Set(reply.quirks ?? []);
  const deltas: object[] = [{ role: "assistant", content: "" }];
  const calls: RawToolCall[] = [];
  for (const block of reply.content) {
    if (block.type === "text") {
      for (const piece of split(block.text)) deltas.push({ content: piece });
    } else if (block.type === "tool_use") {
      const args = JSON.stringify(block.input);
      calls.push({ type: "raw_tool_call", id: block.id, name: block.name, arguments: args });
    } else {
      calls.push(block);
    }
  }
  for (const [position, call] of calls.entries()) {
    const index = quirks.has("all_at_index_zero") ? 0 : position;
    const id = quirks.has("no_ids") ? {} : { id: call.id ?? `call_fake_${position}` };
    const head = { index, ...id, type: "function" };
    if (quirks.has("whole_calls")) {
      deltas.push({
        tool_calls: [{ ...head, function: { name: call.name, arguments: call.arguments } }],
      });
      continue;
    }
    deltas.push({ tool_calls: [{ ...head, function: { name: call.name, arguments: "" } }] });
    for (const piece of split(call.arguments)) {
      const later = quirks.has("repeat_id_and_name")
        ? { ...head, function: { name: call.name, arguments: piece } }
        : quirks.has("empty_name_later")
          ? { index, type: "function", function: { name: "", arguments: piece } }
          : { index, function: { arguments: piece } };
      deltas.push({ tool_calls: [later] });
    }
  }
  const finish =
    reply.finish === undefined ? (calls.length > 0 ? "tool_calls" : "stop") : reply.finish;
  const chunks = deltas.map((delta) => chunk([{ index: 0, delta, finish_reason: null }]));
  if (finish !== null) chunks.push(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
  if (includeUsage) {
    const usage = reply.usage ?? { prompt_tokens: 20, completion_tokens: 10 };
    chunks.push({
      ...chunk([]),
      usage: {
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        total_tokens: usage.prompt_tokens + usage.completion_tokens,
        prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
      },
    });
  }
  return chunks;
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

function split(text: string): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += FRAGMENT) pieces.push(text.slice(at, at + FRAGMENT));
  return pieces;
}

function startEvents(res: ServerResponse) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
}

function event(data: object): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code?: string,
  headers: Record<string, string> = {},
) {
  const type = status >= 500 ? "server_error" : "invalid_request_error";
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ error: { message, type, param: null, code: code ?? null } }));
}

export const rawToolCall = (name: string, args: string, id?: string): RawToolCall => ({
  type: "raw_tool_call",
  name,
  arguments: args,
  ...(id === undefined ? {} : { id }),
});

// A local stand-in for an OpenAI-compatible server: POST /v1/chat/completions with
// `stream: true`, answered as SSE chunks ending in `data: [DONE]`. Each request takes the next
// scripted turn: a reply (optionally with the tool-call quirks of other compatible servers) or
// a fault (HTTP errors with retry-after, an empty body, stalls, resets, an error mid-stream).
// Every request is recorded and checked first; an invalid one gets a 400 in OpenAI's words
// without using up a turn (see chat-request-validator.ts). The scripting mirrors the fake
// Anthropic server's, so one script can drive both.

import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { problemWithRequest } from "./chat-request-validator.js";
import { type FakeReply, replyChunks } from "./fake-openai-chunks.js";

export type { FakeBlock, FakeReply, ToolCallQuirk } from "./fake-openai-chunks.js";

export type FakeTurn =
  | ({ kind: "reply" } & FakeReply)
  | {
      kind: "http_error";
      status: number;
      message: string;
      /** OpenAI's error code, such as "context_length_exceeded" or "model_not_found". */
      code?: string;
      headers?: Record<string, string>;
    }
  /** A 200 whose event stream ends before a single chunk. */
  | { kind: "no_chunks" }
  /** Sends the reply up to the middle of its last block, then nothing more. */
  | ({ kind: "stall" } & FakeReply)
  /** Sends the reply up to the middle of its last block, then destroys the socket. */
  | ({ kind: "reset" } & FakeReply)
  /** Sends the reply up to the middle of its last block, then an error in the stream. */
  | ({ kind: "sse_error"; message: string } & FakeReply);

export interface RecordedRequest {
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** performance.now() when the request arrived, for measuring waits between attempts. */
  receivedAt: number;
  /** The HTTP status the fake answered with. */
  status: number;
  /** Why the request was rejected as invalid, if it was. */
  rejection?: string;
}

export interface FakeOpenAI {
  /** The base URL to give the SDK, ending in /v1. */
  url: string;
  requests: RecordedRequest[];
  /** Replaces the remaining turns. With `cycle`, the script starts over when it runs out. */
  script(turns: FakeTurn[], options?: { cycle?: boolean }): void;
  close(): Promise<void>;
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  let turns: FakeTurn[] = [];
  let next = 0;
  let cycle = false;

  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const part of req) raw += part;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw);
    } catch {
      return sendError(res, 400, "We could not parse the JSON body of your request.");
    }
    const record: RecordedRequest = {
      body,
      headers: req.headers,
      receivedAt: performance.now(),
      status: 200,
    };
    requests.push(record);
    const answer = (status: number, message: string, code?: string, headers = {}) => {
      record.status = status;
      sendError(res, status, message, code, headers);
    };
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      return answer(404, `Invalid URL (${req.method} ${req.url})`);
    }
    const problem = problemWithRequest(body);
    if (problem) {
      record.rejection = problem;
      return answer(400, problem);
    }
    if (cycle && next === turns.length) next = 0;
    const turn = turns[next];
    if (!turn)
      return answer(400, `the fake server has no scripted turn for request ${requests.length}`);
    next += 1;
    if (turn.kind === "http_error") {
      return answer(turn.status, turn.message, turn.code, turn.headers);
    }
    const options = body.stream_options as { include_usage?: boolean } | undefined;
    streamTurn(res, turn, options?.include_usage === true);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script(newTurns, options = {}) {
      turns = [...newTurns];
      next = 0;
      cycle = options.cycle ?? false;
    },
    close() {
      // Stalled streams stay open until the client gives up; don't wait for them.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

type StreamedTurn = Exclude<FakeTurn, { kind: "http_error" }>;

function streamTurn(res: ServerResponse, turn: StreamedTurn, includeUsage: boolean) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (data: object, done?: () => void) =>
    res.write(`data: ${JSON.stringify(data)}\n\n`, done);
  if (turn.kind === "no_chunks") {
    res.end();
    return;
  }
  const { chunks, middleOfLastBlock } = replyChunks(turn, includeUsage);
  const firstHalf = chunks.slice(0, middleOfLastBlock);
  switch (turn.kind) {
    case "reply":
      if (turn.chunkDelayMs) return sendSlowly(res, chunks, turn.chunkDelayMs);
      for (const chunk of chunks) send(chunk);
      res.end("data: [DONE]\n\n");
      return;
    case "stall":
      res.flushHeaders();
      for (const chunk of firstHalf) send(chunk);
      return;
    case "reset":
      firstHalf.forEach((chunk, index) => {
        send(chunk, index === firstHalf.length - 1 ? () => res.socket?.destroy() : undefined);
      });
      return;
    case "sse_error":
      for (const chunk of firstHalf) send(chunk);
      send({ error: { message: turn.message, type: "server_error", param: null, code: null } });
      res.end();
      return;
  }
}

async function sendSlowly(res: ServerResponse, chunks: object[], delayMs: number) {
  res.flushHeaders();
  for (const chunk of chunks) {
    await sleep(delayMs);
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  res.end("data: [DONE]\n\n");
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

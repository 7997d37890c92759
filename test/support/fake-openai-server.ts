// A local stand-in for an OpenAI-compatible server: POST /v1/chat/completions with
// `stream: true`, answered as SSE chunks ending in `data: [DONE]`, and POST /v1/responses, the
// Responses API, answered with its own events (fake-openai-responses.ts). Each request takes the next
// scripted turn: a reply (optionally with the tool-call quirks of other compatible servers) or
// a fault (HTTP errors with retry-after, an empty body, stalls, resets, an error mid-stream).
// Every request is recorded and checked first; an invalid one gets a 400 in OpenAI's words
// without using up a turn (see chat-request-validator.ts). With a context window set, a
// request too long for it gets the error body of the server named by `contextErrorStyle` (on
// OpenAI's Responses API, a 200 whose stream fails: fake-responses-overflow.ts), also without
// using up a turn, and usage reports the request's counted tokens. The scripting
// (turns, cycle, intercept) mirrors the fake Anthropic server's, so one script can drive both.

import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";
import { problemWithRequest } from "./chat-request-validator.js";
import { problemWithReasoning, withReasoning } from "./fake-openai-reasoning.js";
import { newReasoningRegistry } from "./fake-openai-responses.js";
import { missingSearchTool } from "./fake-openai-search.js";
import { chatFrames, type FakeTurn, responsesFrames, streamTurn } from "./fake-openai-stream.js";
import { OVER_WINDOW_MESSAGE, overWindowFrames } from "./fake-responses-overflow.js";
import { problemWithResponsesRequest } from "./responses-request-validator.js";

export type { FakeBlock, FakeReply, ToolCallQuirk } from "./fake-openai-chunks.js";
export type { FakeTurn } from "./fake-openai-stream.js";

export interface RecordedRequest {
  /** The path asked for: /v1/chat/completions or /v1/responses. */
  path: string;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** performance.now() when the request arrived, for measuring waits between attempts. */
  receivedAt: number;
  /** The HTTP status the fake answered with. */
  status: number;
  /**
   * Why the request was rejected as invalid or too long, if it was: with its 400, or (too long
   * on the Responses API) inside a stream whose status was 200.
   */
  rejection?: string;
  /** The length of the request body in bytes, as it came over the wire. */
  bytesReceived: number;
  /** The request's size in tokens (see countChatTokens), once it has passed validation. */
  tokens?: number;
}

/** Whose words a request too long for the context window is refused in. */
export type ContextErrorStyle = "openai" | "llamacpp" | "vllm" | "lmstudio" | "ollama";

export interface FakeOpenAIOptions {
  /** The model's context window in tokens; longer requests are refused (see contextErrorStyle). */
  contextWindow?: number;
  /** Which server's error body a request too long gets; OpenAI's by default. */
  contextErrorStyle?: ContextErrorStyle;
}

export interface ScriptOptions {
  /** Starts the script over when it runs out. */
  cycle?: boolean;
  /**
   * Sees every valid request that fits the context window before the script does; a turn it
   * returns is the answer, and the scripted turns are left for the next requests.
   */
  intercept?: (body: Record<string, unknown>) => FakeTurn | undefined;
}

export interface FakeOpenAI {
  /** The base URL to give the SDK, ending in /v1. */
  url: string;
  requests: RecordedRequest[];
  /** Replaces the remaining turns. */
  script(turns: FakeTurn[], options?: ScriptOptions): void;
  /**
   * Sets the context window from the next request on; undefined lifts the limit (and usage
   * goes back to 20 prompt and 10 completion tokens).
   */
  setContextWindow(tokens: number | undefined): void;
  close(): Promise<void>;
}

/**
 * A request's size in tokens: a token for every four characters of each message's JSON, and
 * of each tool definition's.
 */
export function countChatTokens(body: Record<string, unknown>): number {
  // Chat Completions sends `messages`; the Responses API `instructions` and `input` items.
  const lists = [body.messages, body.input, body.tools];
  const items = lists.flatMap((list) => (Array.isArray(list) ? list : []));
  let total = typeof body.instructions === "string" ? Math.ceil(body.instructions.length / 4) : 0;
  for (const item of items) total += Math.ceil(JSON.stringify(item).length / 4);
  return total;
}

/** A fake server for the running test, scripted with `turns`, closed when the test finishes. */
export async function serveOpenAI(turns: FakeTurn[]): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI();
  server.script(turns);
  onTestFinished(() => server.close());
  return server;
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  let turns: FakeTurn[] = [];
  let next = 0;
  let cycle = false;
  let intercept: ScriptOptions["intercept"];
  let contextWindow = options.contextWindow;
  const style = options.contextErrorStyle ?? "openai";
  const reasoning = newReasoningRegistry();

  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const raw = Buffer.concat(parts);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendError(res, 400, "We could not parse the JSON body of your request.");
    }
    const record: RecordedRequest = {
      path: req.url ?? "",
      body,
      headers: req.headers,
      receivedAt: performance.now(),
      status: 200,
      bytesReceived: raw.length,
    };
    requests.push(record);
    const answer = (status: number, message: string, code?: string, headers = {}) => {
      record.status = status;
      sendError(res, status, message, code, headers);
    };
    const api =
      req.url === "/v1/chat/completions"
        ? "chat"
        : req.url === "/v1/responses"
          ? "responses"
          : null;
    if (req.method !== "POST" || api === null) {
      return answer(404, `Invalid URL (${req.method} ${req.url})`);
    }
    const problem =
      api === "chat"
        ? (problemWithRequest(body) ?? problemWithReasoning(body))
        : (problemWithResponsesRequest(body, reasoning)?.message ?? null);
    if (problem) {
      record.rejection = problem;
      return answer(400, problem);
    }
    const tokens = countChatTokens(body);
    record.tokens = tokens;
    if (contextWindow !== undefined && api === "responses" && style === "openai") {
      if (overWindow(tokens, maxTokensOf(body), contextWindow)) {
        record.rejection = OVER_WINDOW_MESSAGE;
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.end(overWindowFrames(String(body.model)).join(""));
        return;
      }
    } else if (contextWindow !== undefined) {
      const refusal = contextRefusal(style, tokens, maxTokensOf(body), contextWindow);
      if (refusal) {
        record.status = 400;
        record.rejection = refusal.reason;
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify(refusal.body));
        return;
      }
    }
    let turn = intercept?.(body);
    if (!turn) {
      if (cycle && next === turns.length) next = 0;
      turn = turns[next];
      if (!turn)
        return answer(400, `the fake server has no scripted turn for request ${requests.length}`);
      next += 1;
    }
    if (turn.kind === "http_error") {
      return answer(turn.status, turn.message, turn.code, turn.headers);
    }
    const promptTokens = contextWindow === undefined ? undefined : tokens;
    const noSearch =
      api === "responses" && turn.kind !== "no_chunks" && missingSearchTool(turn, body);
    if (noSearch) return answer(400, noSearch);
    if (api === "responses") {
      return streamTurn(res, turn, responsesFrames(turn, body, reasoning, promptTokens));
    }
    const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
    const thought = turn.kind === "no_chunks" ? turn : withReasoning(turn, body, requests.length);
    streamTurn(
      res,
      thought,
      chatFrames(thought, streamOptions?.include_usage === true, promptTokens),
    );
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

function maxTokensOf(body: Record<string, unknown>): number | undefined {
  const max = body.max_completion_tokens ?? body.max_tokens ?? body.max_output_tokens;
  return typeof max === "number" ? max : undefined;
}

/** Whether a request of `prompt` tokens, asking room for `max` more, passes the window. */
function overWindow(prompt: number, max: number | undefined, window: number): boolean {
  return prompt > window || prompt + (max ?? 0) > window;
}

/**
 * The body each server answers a request too long for its window with (always a 400), and
 * the reason to record; null when the request fits. `prompt` is the request's own tokens and
 * `max` the completion tokens it asks room for.
 */
function contextRefusal(
  style: ContextErrorStyle,
  prompt: number,
  max: number | undefined,
  window: number,
): { body: object; reason: string } | null {
  const completion = max ?? 0;
  if (!overWindow(prompt, max, window)) return null;
  // When only the room asked for the completion overflows, the servers that count it name
  // the whole; the others only ever name the prompt, so they are given the whole instead.
  const requested = prompt + completion;
  const named = prompt > window ? prompt : requested;
  const refused = (body: object, reason: string) => ({ body, reason });
  switch (style) {
    case "openai": {
      const message =
        prompt > window
          ? `This model's maximum context length is ${window} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`
          : `This model's maximum context length is ${window} tokens. However, you requested ${requested} tokens (${prompt} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`;
      const error = {
        message,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      };
      return refused({ error }, message);
    }
    case "llamacpp": {
      const message = `request (${named} tokens) exceeds the available context size (${window} tokens)`;
      const error = {
        code: 400,
        message,
        type: "exceed_context_size_error",
        n_prompt_tokens: prompt,
        n_ctx: window,
      };
      return refused({ error }, message);
    }
    case "vllm": {
      const message = `This model's maximum context length is ${window} tokens. However, you requested ${requested} tokens (${prompt} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`;
      return refused(
        { object: "error", message, type: "BadRequestError", param: null, code: 400 },
        message,
      );
    }
    case "lmstudio": {
      const message = `Trying to keep the first ${named} tokens when context the overflows. However, the model is loaded with context length of only ${window} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input.`;
      return refused({ error: message }, message);
    }
    case "ollama": {
      const message = `prompt too long; exceeded max context length by ${named - window} tokens`;
      const error = { message, type: "api_error", param: null, code: null };
      return refused({ error }, message);
    }
  }
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

// What each failure of an OpenAI request (Chat Completions or Responses) means for the user:
// whether trying again can help, and one sentence saying what happened and what to do. The
// SDK's typed errors give the HTTP status; the message text gives the rest (servers agree on
// statuses far better than on error codes).

import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { ProviderError, type ProviderErrorKind } from "../core/errors.js";
import { contextWindowIn } from "./context-limit.js";
import { connectionCause, isLocalURL, isUnreachable } from "./network-errors.js";
import { type RetryDecision, retryAfterMs } from "./retry.js";

/** Who we were talking to, so messages can name the server, the model and the key. */
export interface ServerContext {
  /** The preset's name ("openai", "ollama", ...). */
  name: string;
  baseURL: string;
  model: string;
  /** The environment variable the key came from; null for servers that need none. */
  apiKeyEnv: string | null;
}

// The address is wrong or nothing listens there: trying again will not help.

/** Decides about one failed attempt. Anything that is not a server or network failure is a bug. */
export function classifyOpenAIError(error: unknown, server: ServerContext): RetryDecision {
  if (error instanceof ProviderError) return { retry: isTransient(error.kind), error };
  if (error instanceof APIConnectionError) return connectionFailed(error, server);
  if (error instanceof APIError && !(error instanceof APIUserAbortError)) {
    return { ...fromStatus(error, server), retryAfterMs: retryAfterMs(error.headers) };
  }
  // A socket that breaks mid-stream reaches us as Node's own error, not the SDK's.
  if (error instanceof Error && connectionCause(error).code !== undefined) {
    const message = `The connection to ${server.baseURL} broke off during the reply (${connectionCause(error).message}).`;
    return decide("server", message);
  }
  throw error;
}

function decide(kind: ProviderErrorKind, message: string, status?: number): RetryDecision {
  return { retry: isTransient(kind), error: new ProviderError(kind, message, status) };
}

function isTransient(kind: ProviderErrorKind): boolean {
  return kind === "rate_limited" || kind === "server" || kind === "stream_stalled";
}

function fromStatus(error: APIError, server: ServerContext): RetryDecision {
  const status = error.status;
  const detail = serverMessage(error);
  if (status === 401 || status === 403) {
    return decide("authentication", authenticationMessage(status, server), status);
  }
  // Before the status: a stream that began with a 200 may still report the window overflowed.
  if (isContextTooLong(error)) {
    const message = `The conversation is too long for the model's context window (${detail}).`;
    const window = namedWindow(error) ?? contextWindowIn(detail);
    return { retry: false, error: new ProviderError("context_too_long", message, status, window) };
  }
  if (status === undefined) return inStream(error, server);
  if (status === 400 && NEEDS_RESPONSES.test(detail)) {
    const message = `The ${server.name} server takes no function tools for "${server.model}" on Chat Completions (${detail}): run agentloop with --api responses.`;
    return decide("invalid_request", message, status);
  }
  if (status === 404 || error.code === "model_not_found") {
    return decide("model_not_found", modelNotFoundMessage(server), status);
  }
  if (status === 429) {
    const message = `The ${server.name} server is rate limiting requests (429: ${detail}).`;
    return decide("rate_limited", message, status);
  }
  if (status === 408 || status === 409 || status >= 500) {
    return decide("server", `The ${server.name} server failed (${status}: ${detail}).`, status);
  }
  const message = `The ${server.name} server rejected the request (${status}: ${detail}).`;
  return decide("invalid_request", message, status);
}

/**
 * An error the SDK read inside a stream after its 200, so with no status: a Chat Completions
 * chunk `{"error": {...}}`, or a Responses API `error` event whose error is nested, the form the
 * API sends (`{"type":"error","error":{"type":"invalid_request_error","code":...}}`, as quoted
 * in https://github.com/dyad-sh/dyad/issues/1672) rather than the flat one its reference shows.
 * The SDK throws on either before we see the event (openai/core/streaming: `data.error`). Its
 * code, when it has one, decides as the code of an event we read ourselves would.
 */
function inStream(error: APIError, server: ServerContext): RetryDecision {
  if (typeof error.code !== "string") {
    return decide(
      "server",
      `The ${server.name} server reported an error: ${serverMessage(error)}.`,
    );
  }
  const failure = streamedFailure(error.code, serverMessage(error), server);
  return { retry: isTransient(failure.kind), error: failure };
}

function authenticationMessage(status: number, server: ServerContext): string {
  if (server.apiKeyEnv) {
    return `The ${server.name} server rejected the API key (${status}): check ${server.apiKeyEnv}.`;
  }
  return `The server at ${server.baseURL} refused the request (${status}): if it needs a key, use --provider openai --api chat --base-url ${server.baseURL} and set OPENAI_API_KEY.`;
}

function modelNotFoundMessage(server: ServerContext): string {
  const where = `The model "${server.model}" was not found at ${server.baseURL}`;
  if (server.name === "ollama") return `${where}: download it with "ollama pull ${server.model}".`;
  return `${where}: check --model, and that the base URL is right (it usually ends in /v1).`;
}

function connectionFailed(error: APIConnectionError, server: ServerContext): RetryDecision {
  const cause = connectionCause(error);
  const hopeless = isUnreachable(cause);
  const message =
    cause.code === "ECONNREFUSED" && isLocalURL(server.baseURL)
      ? `Could not connect to ${server.baseURL}: the ${server.name} server does not seem to be running.`
      : `Could not connect to ${server.baseURL} (${cause.message}).`;
  return { retry: !hopeless, error: new ProviderError("unreachable", message) };
}

/**
 * OpenAI's reasoning models of 2026 (GPT-5.6, GPT-6) refuse function tools on
 * /v1/chat/completions: "Function tools with reasoning_effort are not supported for
 * gpt-5.6-terra in /v1/chat/completions. To use function tools, use /v1/responses or set
 * reasoning_effort to 'none'" (https://developers.openai.com/api/docs/models/gpt-6-sol).
 */
const NEEDS_RESPONSES = /function tools.*not supported.*\/v1\/chat\/completions/i;

/**
 * A failure the server reports inside a stream that began with a 200: a Responses API `error`
 * event or a `response.failed` event, with the error's code (`server_error`,
 * `rate_limit_exceeded`, ...). Server and rate-limit failures are worth another attempt.
 * `context_length_exceeded` is how the Responses API turns away a streamed request over the
 * window (a 200, then both events; Codex reads it the same way: openai/codex,
 * codex-rs/codex-api/src/sse/responses.rs): it goes to compaction, never sent again as it was.
 */
export function streamedFailure(
  code: string | null | undefined,
  message: string,
  server: ServerContext,
): ProviderError {
  const detail = `${code ?? "error"}: ${message.trim().replace(/\.$/, "")}`;
  if (code === "rate_limit_exceeded") {
    return new ProviderError(
      "rate_limited",
      `The ${server.name} server is rate limiting requests (${detail}).`,
    );
  }
  if (code === CONTEXT_OVERFLOW_CODE) {
    const text = `The conversation is too long for the model's context window (${detail}).`;
    return new ProviderError("context_too_long", text, undefined, contextWindowIn(message));
  }
  if (!code || code === "server_error") {
    return new ProviderError(
      "server",
      `The ${server.name} server failed during the reply (${detail}).`,
    );
  }
  return new ProviderError(
    "invalid_request",
    `The ${server.name} server stopped the reply (${detail}).`,
  );
}

/** OpenAI's error code for a request over the model's context window. */
export const CONTEXT_OVERFLOW_CODE = "context_length_exceeded";

/** Servers word this differently; OpenAI sends a code, vLLM and llama.cpp only a message. */
function isContextTooLong(error: APIError): boolean {
  if (error.code === CONTEXT_OVERFLOW_CODE) return true;
  if (namedWindow(error) !== undefined) return true;
  return /context (length|size|window)|maximum context|too many tokens|prompt too long|n_ctx/i.test(
    serverMessage(error),
  );
}

/** llama.cpp names the window in a field of its error body. */
function namedWindow(error: APIError): number | undefined {
  const body = error.error as { n_ctx?: unknown } | undefined;
  return typeof body?.n_ctx === "number" ? body.n_ctx : undefined;
}

function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  const message = typeof body?.message === "string" ? body.message : error.message;
  return message.trim().replace(/\.$/, "");
}

// What went wrong talking to a Chat Completions server, as one sentence the user can act on.
// The SDK's typed errors tell us the HTTP status; the message text tells us the rest (servers
// agree on statuses far better than on error codes).

import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { ProviderError } from "../errors.js";

/** Who we were talking to, so messages can name the server, the model and the key. */
export interface ServerContext {
  /** The preset's name ("openai", "ollama", ...). */
  name: string;
  baseURL: string;
  model: string;
  /** The environment variable the key came from; null for servers that need none. */
  apiKeyEnv: string | null;
}

/** True for an interruption the user asked for: it is passed on as it is, never retried. */
export function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || error instanceof APIUserAbortError;
}

export function toProviderError(error: unknown, server: ServerContext): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof APIConnectionError) return unreachable(error, server);
  if (error instanceof APIError) return fromStatus(error, server);
  // A socket that breaks mid-stream reaches us as Node's own error, not the SDK's.
  if (error instanceof Error && errorCode(error) !== undefined) {
    const message = `The connection to ${server.baseURL} broke off during the reply (${causeMessage(error)}).`;
    return new ProviderError("server", message);
  }
  throw error;
}

function fromStatus(error: APIError, server: ServerContext): ProviderError {
  const status = error.status;
  const detail = serverMessage(error);
  if (status === undefined) {
    return new ProviderError("server", `The ${server.name} server reported an error: ${detail}.`);
  }
  if (status === 401 || status === 403) {
    return new ProviderError("authentication", authenticationMessage(status, server), status);
  }
  if (isContextTooLong(error)) {
    const message = `The conversation is too long for the model's context window (${detail}).`;
    return new ProviderError("context_too_long", message, status);
  }
  if (status === 404 || error.code === "model_not_found") {
    return new ProviderError("model_not_found", modelNotFoundMessage(server), status);
  }
  if (status === 429) {
    const message = `The ${server.name} server is rate limiting requests (429: ${detail}).`;
    return new ProviderError("rate_limited", message, status);
  }
  if (status >= 500) {
    const message = `The ${server.name} server failed (${status}: ${detail}).`;
    return new ProviderError("server", message, status);
  }
  const message = `The ${server.name} server rejected the request (${status}: ${detail}).`;
  return new ProviderError("invalid_request", message, status);
}

function authenticationMessage(status: number, server: ServerContext): string {
  if (server.apiKeyEnv) {
    return `The ${server.name} server rejected the API key (${status}): check ${server.apiKeyEnv}.`;
  }
  return `The server at ${server.baseURL} refused the request (${status}): if it needs a key, use --provider openai --base-url ${server.baseURL} and set OPENAI_API_KEY.`;
}

function modelNotFoundMessage(server: ServerContext): string {
  const where = `The model "${server.model}" was not found at ${server.baseURL}`;
  if (server.name === "ollama") return `${where}: download it with "ollama pull ${server.model}".`;
  return `${where}: check --model, and that the base URL is right (it usually ends in /v1).`;
}

function unreachable(error: APIConnectionError, server: ServerContext): ProviderError {
  const code = errorCode(error);
  if (code === "ECONNREFUSED" && isLocalURL(server.baseURL)) {
    const message = `Could not connect to ${server.baseURL}: the ${server.name} server does not seem to be running.`;
    return new ProviderError("unreachable", message);
  }
  return new ProviderError(
    "unreachable",
    `Could not connect to ${server.baseURL} (${causeMessage(error)}).`,
  );
}

/** Servers word this differently; OpenAI sends a code, vLLM and llama.cpp only a message. */
function isContextTooLong(error: APIError): boolean {
  if (error.code === "context_length_exceeded") return true;
  return /context (length|size|window)|maximum context|too many tokens/i.test(serverMessage(error));
}

function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  const message = typeof body?.message === "string" ? body.message : error.message;
  return message.trim().replace(/\.$/, "");
}

/** Node puts the useful part (ECONNREFUSED, ENOTFOUND, "other side closed") in the causes. */
function errorCode(error: unknown): string | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

function causeMessage(error: Error): string {
  let deepest = error;
  while (deepest.cause instanceof Error) deepest = deepest.cause;
  return deepest.message.replace(/\.$/, "");
}

export function isLocalURL(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "localhost" || host === "[::1]" || host.startsWith("127.");
  } catch {
    return false;
  }
}

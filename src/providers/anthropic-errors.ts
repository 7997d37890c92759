// What each failure of an Anthropic request means for the user: whether trying again can help,
// and one sentence saying what happened and what to do.

import { AnthropicError, APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { ProviderError, type ProviderErrorKind } from "../core/errors.js";
import { contextWindowIn } from "./context-limit.js";
import { connectionCause, isUnreachable } from "./network-errors.js";
import { type RetryDecision, retryAfterMs } from "./retry.js";

interface Target {
  model: string;
  baseURL: string;
}

// Errors sent inside a 200 stream carry a type but no status; give them the status it means.
const STATUS_OF_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

// The address is wrong or nothing listens there: trying again will not help.

/** Decides about one failed attempt. Anything that is not the SDK's error is a bug and rethrown. */
export function classifyAnthropicError(error: unknown, target: Target): RetryDecision {
  if (error instanceof APIConnectionError) return connectionFailed(error, target);
  if (error instanceof APIError && !(error instanceof APIUserAbortError)) {
    const type = error.type ?? "error";
    const status = error.status ?? STATUS_OF_TYPE[type] ?? 500;
    const label = error.status === undefined ? `${type} in the stream` : `${status} ${type}`;
    const detail = `${label}: ${error.apiMessage ?? error.message}`;
    return { ...byStatus(status, detail, target), retryAfterMs: retryAfterMs(error.headers) };
  }
  if (error instanceof AnthropicError) {
    // The SDK wraps what broke the stream half-way: a reset socket, a body that just ended.
    const message = `The connection to the Anthropic API broke before the reply was complete (${error.message}).`;
    return { retry: true, error: new ProviderError("server", message) };
  }
  throw error;
}

function byStatus(status: number, detail: string, { model, baseURL }: Target) {
  const decide = (retry: boolean, kind: ProviderErrorKind, message: string) => ({
    retry,
    error: new ProviderError(kind, message, status),
  });
  if (status === 400 && /prompt is too long|exceed context limit/i.test(detail)) {
    const message = `The conversation is too long for ${model} (${detail}).`;
    const error = new ProviderError("context_too_long", message, status, contextWindowIn(detail));
    return { retry: false, error };
  }
  switch (status) {
    case 400:
      return decide(
        false,
        "invalid_request",
        `The Anthropic API rejected the request (${detail}).`,
      );
    case 401:
      return decide(
        false,
        "authentication",
        `The Anthropic API rejected the API key (${detail}); check ANTHROPIC_API_KEY.`,
      );
    case 403:
      return decide(
        false,
        "authentication",
        `The Anthropic API refused access (${detail}); check that the key in ANTHROPIC_API_KEY may use ${model}.`,
      );
    case 404:
      return decide(
        false,
        "model_not_found",
        `The model "${model}" was not found at ${baseURL} (${detail}); choose another with --model or MODEL_ID.`,
      );
    case 413:
      return decide(false, "context_too_long", `The request is too large for the API (${detail}).`);
    case 429:
      return decide(
        true,
        "rate_limited",
        `The Anthropic API is rate limiting requests (${detail}).`,
      );
    case 529:
      return decide(true, "server", `The Anthropic API is overloaded (${detail}).`);
  }
  if (status === 408 || status === 409 || status >= 500) {
    return decide(true, "server", `The Anthropic API failed (${detail}).`);
  }
  return decide(false, "invalid_request", `The Anthropic API rejected the request (${detail}).`);
}

function connectionFailed(error: APIConnectionError, { baseURL }: Target): RetryDecision {
  const cause = connectionCause(error);
  const reason = cause.code ?? cause.message;
  if (isUnreachable(cause)) {
    const message = `Cannot reach the Anthropic API at ${baseURL} (${reason}); check ANTHROPIC_BASE_URL or --base-url.`;
    return { retry: false, error: new ProviderError("unreachable", message) };
  }
  // The server was there a moment ago (a reset, a timeout): a transient failure, not configuration.
  const message = `The connection to the Anthropic API at ${baseURL} failed (${reason}).`;
  return { retry: true, error: new ProviderError("server", message) };
}

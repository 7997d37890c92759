// Retries and the idle timeout around one streamed model request, for every provider.
//
// The SDKs retry only the initial HTTP response; a stream that dies half-way, sends an SSE
// error after a 200, or simply goes quiet is ours to handle. A provider hands over one
// attempt (a stream of events ending in a reply) and a way to classify its errors; this
// module runs attempts until one completes, waiting between them, and aborts any attempt
// that sends nothing for too long.

import { setTimeout as sleep } from "node:timers/promises";
import { ProviderError } from "../core/errors.js";
import type { ModelReply, StreamEvent } from "./provider.js";

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** The first backoff; each later one doubles, up to maxDelayMs, then jitter takes up to half off. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Waits between attempts add up to at most this; a wait that would pass it is not made. */
  maxTotalDelayMs: number;
  /** An attempt that sends nothing for this long is aborted and tried again. */
  idleTimeoutMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 6,
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxTotalDelayMs: 120_000,
  idleTimeoutMs: 60_000,
};

/** What to do about one failed attempt. `error` is what the caller sees if we stop here. */
export interface RetryDecision {
  retry: boolean;
  /** The server's own wait (retry-after), used instead of the backoff. */
  retryAfterMs?: number;
  error: ProviderError;
}

/**
 * One try at the request. `signal` aborts it (user interrupt or idle timeout). Call `alive()`
 * whenever data arrives that is not yielded (tool input, pings), so the idle clock restarts.
 */
export type Attempt = (
  signal: AbortSignal,
  alive: () => void,
) => AsyncGenerator<StreamEvent, ModelReply, void>;

export interface RetryOptions {
  /** The user's interrupt: stops everything at once and is rethrown, never retried. */
  signal: AbortSignal;
  policy?: Partial<RetryPolicy>;
  /** Turns an attempt's error into a decision. It may rethrow errors that are bugs. */
  classify: (error: unknown) => RetryDecision;
  /** Source of jitter, replaceable in tests. */
  random?: () => number;
}

/**
 * Runs attempts until one returns a reply. Events stream through as they arrive; before each
 * new attempt a `retry` event says why and how long we wait, so a consumer can discard the
 * partial text it showed. The returned reply always comes from one complete attempt.
 */
export async function* withRetries(
  attempt: Attempt,
  options: RetryOptions,
): AsyncGenerator<StreamEvent, ModelReply, void> {
  const policy = { ...defaultRetryPolicy, ...options.policy };
  const random = options.random ?? Math.random;
  let waitedMs = 0;
  for (let number = 1; ; number += 1) {
    let decision: RetryDecision;
    try {
      return yield* watchedAttempt(attempt, options.signal, policy.idleTimeoutMs);
    } catch (error) {
      options.signal.throwIfAborted();
      decision = isStall(error) ? { retry: true, error } : options.classify(error);
    }
    if (!decision.retry) throw decision.error;
    const delayMs = decision.retryAfterMs ?? backoffMs(policy, number, random);
    if (number >= policy.maxAttempts || waitedMs + delayMs > policy.maxTotalDelayMs) {
      throw gaveUp(decision.error, number);
    }
    yield { type: "retry", attempt: number + 1, delayMs, reason: decision.error.message };
    try {
      await sleep(delayMs, undefined, { signal: options.signal });
    } catch {
      options.signal.throwIfAborted();
    }
    waitedMs += delayMs;
  }
}

/** Exponential backoff with jitter: attempt n waits between half and all of initial * 2^(n-1). */
function backoffMs(policy: RetryPolicy, failedAttempt: number, random: () => number) {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (failedAttempt - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
}

interface HeaderSource {
  get(name: string): string | null;
}

/** The server's requested wait from `retry-after-ms` or `retry-after` (seconds or HTTP date). */
export function retryAfterMs(headers: HeaderSource | undefined, now = Date.now()) {
  const milliseconds = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds);
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (!Number.isNaN(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const stallMarker = Symbol("stall");

function isStall(error: unknown): error is ProviderError {
  return error instanceof ProviderError && stallMarker in error;
}

/**
 * Runs one attempt under its own AbortController, linked to the user's signal. Every wait for
 * the next event races the controller, so an attempt that ignores its signal is still left
 * behind at once. The idle clock runs only while we wait on the attempt, not while our
 * consumer handles an event.
 */
async function* watchedAttempt(
  attempt: Attempt,
  userSignal: AbortSignal,
  idleTimeoutMs: number,
): AsyncGenerator<StreamEvent, ModelReply, void> {
  userSignal.throwIfAborted();
  const controller = new AbortController();
  const stopped = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), {
      once: true,
    });
  });
  stopped.catch(() => {});
  const forwardAbort = () => controller.abort(userSignal.reason);
  userSignal.addEventListener("abort", forwardAbort, { once: true });

  let lastActivity = performance.now();
  const alive = () => {
    lastActivity = performance.now();
  };
  let timer: NodeJS.Timeout | undefined;
  const watch = () => {
    const quietMs = performance.now() - lastActivity;
    if (quietMs < idleTimeoutMs) timer = setTimeout(watch, idleTimeoutMs - quietMs);
    else controller.abort(stallError(idleTimeoutMs));
  };

  const stream = attempt(controller.signal, alive);
  let finished = false;
  try {
    while (true) {
      alive();
      timer = setTimeout(watch, idleTimeoutMs);
      const step = await Promise.race([stream.next(), stopped]);
      clearTimeout(timer);
      finished = step.done === true;
      if (step.done) return step.value;
      yield step.value;
    }
  } finally {
    clearTimeout(timer);
    userSignal.removeEventListener("abort", forwardAbort);
    // An attempt left unfinished (an error, or a consumer that stopped early) is aborted, so
    // its request ends. A finished one has let go of its request; aborting it anyway made an
    // AbortError and ran every abort listener the SDK and fetch had left, on every turn.
    if (!finished) {
      controller.abort();
      // Let the attempt run its own cleanup; it has nothing more to tell us.
      stream.return(undefined as never).catch(() => {});
    }
  }
}

function stallError(idleTimeoutMs: number): ProviderError {
  const seconds = idleTimeoutMs / 1000;
  const error = new ProviderError(
    "stream_stalled",
    `The model's stream sent nothing for ${seconds} s, so it was abandoned.`,
  );
  Object.defineProperty(error, stallMarker, { value: true });
  return error;
}

function gaveUp(error: ProviderError, attempts: number): ProviderError {
  if (attempts === 1) return error;
  return new ProviderError(
    error.kind,
    `${error.message} Gave up after ${attempts} attempts.`,
    error.status,
    error.contextWindow,
  );
}

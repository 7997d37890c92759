// How a run ends, as a process exit code (documented in docs/sessions.md).

import { ConfigError, ProviderError } from "./errors.js";
import type { LoopStop } from "./events.js";

export const EXIT = {
  done: 0,
  runtimeError: 1,
  configError: 2,
  limitHit: 3,
  interrupted: 130,
} as const;

export function exitCodeFor(stop: LoopStop): number {
  switch (stop.reason) {
    case "end_turn":
      return EXIT.done;
    case "max_turns":
    case "max_cost":
    case "repeated_call":
      return EXIT.limitHit;
    case "interrupted":
      return EXIT.interrupted;
    case "error":
      return isConfigurationError(stop.error) ? EXIT.configError : EXIT.runtimeError;
    case "max_tokens":
    case "refusal":
    case "unknown_stop_reason":
    case "context_too_long":
      return EXIT.runtimeError;
  }
}

/** Errors the user fixes in their setup (key, model, URL) rather than by trying again. */
export function isConfigurationError(error: Error | undefined): boolean {
  if (error instanceof ConfigError) return true;
  return error instanceof ProviderError && error.isConfiguration;
}

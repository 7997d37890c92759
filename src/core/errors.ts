// Errors a user or the outside world can cause. Each carries one readable sentence; the CLI
// prints it and picks the exit code from the kind. Anything else that throws is a bug.

export type ProviderErrorKind =
  | "authentication"
  | "model_not_found"
  | "unreachable"
  | "context_too_long"
  | "invalid_request"
  | "rate_limited"
  | "server"
  | "stream_stalled"
  | "empty_reply";

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
    /** For context_too_long: the window the server named, when it did. */
    readonly contextWindow?: number,
  ) {
    super(message);
    this.name = "ProviderError";
  }

  /** Errors the user fixes in their configuration (key, model, base URL), not by retrying. */
  get isConfiguration(): boolean {
    return (
      this.kind === "authentication" ||
      this.kind === "model_not_found" ||
      this.kind === "unreachable"
    );
  }
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

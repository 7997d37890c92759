// Which failures of a call mean the connection to the server is gone (so the next call starts
// or reaches it again), and how to say any of them in a few words.

import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerEntry } from "./config.js";
import { ServerGoneError } from "./stdio-transport.js";

function isConnectionClosed(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
}

/** The call never reached the server, so sending it again cannot run it twice. */
export function notDelivered(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return (
    (error instanceof StreamableHTTPError && error.code === 404) ||
    (error instanceof TypeError && cause?.code === "ECONNREFUSED")
  );
}

/** The connection broke (a network error, an HTTP error status), rather than the call. */
export function isConnectionFailure(error: unknown): boolean {
  return (
    isConnectionClosed(error) ||
    error instanceof ServerGoneError ||
    error instanceof StreamableHTTPError ||
    (error instanceof TypeError && error.message === "fetch failed")
  );
}

/** An error as a few words: "the connection to http://... was refused". */
export function describeError(error: unknown, entry: McpServerEntry): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (
    error instanceof TypeError &&
    error.message === "fetch failed" &&
    entry.config.type === "http"
  ) {
    if (cause?.code === "ECONNREFUSED") return `the connection to ${entry.config.url} was refused`;
    return `${entry.config.url} could not be reached: ${cause?.message ?? cause?.code ?? "fetch failed"}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s*\n\s*/g, " ").replace(/[.\s]+$/, "");
}

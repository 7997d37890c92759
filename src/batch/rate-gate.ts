// One rate-limit budget for every agent of a batch. The agents are separate processes, so they
// talk to the model API through this small forwarding server on 127.0.0.1: when the API answers
// any of them with 429 (or 529, overloaded) and a retry-after, every request waits until then,
// instead of N agents hammering a limit one by one. An optional requests-per-minute pace
// spreads the requests out before the API has to say so. Bodies stream through untouched.

import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";

export interface RateGate {
  /** The base URL agents use instead of the upstream one (same path). */
  url: string;
  /** Requests held back so far because of a pause or the pace. */
  held(): number;
  close(): Promise<void>;
}

export interface RateGateOptions {
  /** The API's base URL, e.g. https://api.anthropic.com or http://host/v1. */
  upstream: string;
  requestsPerMinute?: number;
  /** Called when a 429 pauses everyone, with how long. */
  onPause?: (ms: number) => void;
}

/** How long to pause after a 429 that does not say. */
const DEFAULT_PAUSE_MS = 5000;
const BUSY_STATUSES = new Set([429, 529]);

export async function startRateGate(options: RateGateOptions): Promise<RateGate> {
  const upstream = new URL(options.upstream);
  const send = upstream.protocol === "https:" ? httpsRequest : httpRequest;
  const spacing = options.requestsPerMinute ? 60_000 / options.requestsPerMinute : 0;
  let pausedUntil = 0;
  let nextSlot = 0;
  let held = 0;

  /** Waits for the pause to end and for this request's slot in the pace. */
  async function turn(): Promise<void> {
    // A timer may fire a little early, and a new 429 may extend the pause: look again.
    for (let waited = false; ; waited = true) {
      const now = Date.now();
      const ready = Math.max(pausedUntil, nextSlot);
      if (ready <= now) {
        nextSlot = now + spacing;
        return;
      }
      if (!waited) held += 1;
      await new Promise((resolve) => setTimeout(resolve, ready - now));
    }
  }

  const server = createServer(async (incoming, outgoing) => {
    await turn();
    const forward = send(
      new URL(incoming.url ?? "/", upstream.origin),
      { method: incoming.method, headers: { ...incoming.headers, host: upstream.host } },
      (answer) => {
        const status = answer.statusCode ?? 502;
        if (BUSY_STATUSES.has(status)) {
          const ms = retryAfterMs(answer) ?? DEFAULT_PAUSE_MS;
          pausedUntil = Math.max(pausedUntil, Date.now() + ms);
          options.onPause?.(ms);
        }
        outgoing.writeHead(status, answer.headers);
        answer.pipe(outgoing);
      },
    );
    // The agent sees the same broken connection it would have seen without the gate.
    forward.on("error", () => outgoing.destroy());
    outgoing.on("close", () => forward.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const path = upstream.pathname === "/" ? "" : upstream.pathname.replace(/\/$/, "");
  return {
    url: `http://127.0.0.1:${port}${path}`,
    held: () => held,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** retry-after-ms, or retry-after in seconds or as an HTTP date. */
function retryAfterMs(answer: IncomingMessage): number | undefined {
  const ms = Number(answer.headers["retry-after-ms"]);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = answer.headers["retry-after"];
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

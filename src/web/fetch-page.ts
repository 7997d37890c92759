// Fetching one URL the safe way: every hop's address is checked before it is dialled, a
// redirect is followed only to a checked address (at most MAX_REDIRECTS times), to another host
// only when that host may be fetched without asking, and the whole fetch has one deadline.

import { type AddressPolicy, checkedAddress, FetchRefused } from "./checked-address.js";
import type { RequestLimits } from "./pinned-request.js";

export const MAX_REDIRECTS = 5;

export interface FetchOptions extends RequestLimits {
  policy: AddressPolicy;
  totalTimeoutMs: number;
  /** Whether a redirect to `to`, another host than the one asked for, may be followed. */
  mayFollowTo(to: URL): boolean;
}

export type Fetched =
  | {
      kind: "page";
      /** Where the page came from, after redirects. */
      url: URL;
      status: number;
      contentType: string;
      body: Buffer;
      cut: boolean;
    }
  /** A redirect to a host that needs its own permission: the model may fetch it itself. */
  | { kind: "elsewhere"; to: URL };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches `url`. Throws FetchRefused when an address check refuses a hop (nothing was sent to
 * it), and an Error with a readable message when the network fails or the deadline passes.
 */
export async function fetchPage(
  url: URL,
  options: FetchOptions,
  interrupt: AbortSignal,
): Promise<Fetched> {
  const deadline = AbortSignal.timeout(options.totalTimeoutMs);
  const signal = AbortSignal.any([interrupt, deadline]);
  try {
    return await follow(url, options, signal);
  } catch (error) {
    if (deadline.aborted && !(error instanceof FetchRefused)) {
      throw new Error(`it did not arrive within ${options.totalTimeoutMs / 1000} s.`);
    }
    throw error;
  }
}

async function follow(first: URL, options: FetchOptions, signal: AbortSignal): Promise<Fetched> {
  let url = first;
  for (let hop = 0; ; hop++) {
    const target = await checkedAddress(url, options.policy);
    signal.throwIfAborted();
    // Node's HTTP clients load with the first fetch: most sessions offered web_fetch fetch nothing.
    const { pinnedGet } = await import("./pinned-request.js");
    const head = await pinnedGet(url, target, options, signal);
    const location = head.headers.location;
    if (!REDIRECTS.has(head.status) || !location) {
      const { body, cut } = await head.readBody();
      const contentType = head.headers["content-type"] ?? "";
      return { kind: "page", url, status: head.status, contentType, body, cut };
    }
    head.discard();
    if (hop === MAX_REDIRECTS) {
      throw new Error(`${first.href} redirected more than ${MAX_REDIRECTS} times; stopped.`);
    }
    const next = new URL(location, url);
    if (next.hostname !== first.hostname && !options.mayFollowTo(next)) {
      return { kind: "elsewhere", to: next };
    }
    url = next;
  }
}

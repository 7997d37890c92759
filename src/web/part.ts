// The web part: the web_fetch tool, its permission gate and its address check, the provider's
// own web search where there is one, and an event for each fetch (URL, size, time) and each
// search (query, results) that the terminal, the viewer and stream-json show.

import { rmSync } from "node:fs";
import type { LoopEvent } from "../core/events.js";
import type { PartHost, SessionPart } from "../core/part.js";
import type { Tool } from "../core/tool.js";
import { type AddressPolicy, systemResolver } from "./checked-address.js";
import { createFetchGate, type GateOptions } from "./fetch-gate.js";
import { sizeOf } from "./page-content.js";
import { searchOffered } from "./search-part.js";
import { createWebFetchTool } from "./web-fetch-tool.js";
import { createWebSearchTool, searchEvents } from "./web-search.js";

export const FETCH_LIMITS = {
  connectTimeoutMs: 10_000,
  totalTimeoutMs: 60_000,
  maxBytes: 10 * 1024 * 1024,
};
const PAGE_CHARS = 50_000;

export interface WebPartOptions extends GateOptions {
  /** Offer web_fetch (to subagents too, with `fetchForChild`); offer the provider's web search (where the provider has one). */
  fetch: boolean;
  fetchForChild?: boolean;
  search: boolean;
  /** From the user's settings (web-settings.ts). */
  allowHosts: readonly string[];
  /** Where binary downloads go (with `fetch`); removed when the session closes. */
  downloads?: string;
  /** For tests: a resolver that maps made-up names, and shorter limits. */
  resolve?: AddressPolicy["resolve"];
  limits?: Partial<typeof FETCH_LIMITS>;
  pageChars?: number;
}

export function createWebPart(options: WebPartOptions): SessionPart {
  const events: LoopEvent[] = [];
  const policy = { resolve: options.resolve ?? systemResolver, allowHosts: options.allowHosts };
  const webFetch = createWebFetchTool({
    fetch: { ...FETCH_LIMITS, ...options.limits, policy },
    gate: createFetchGate(options),
    pageChars: options.pageChars ?? PAGE_CHARS,
    downloads: options.downloads ?? "",
    onFetched({ url, status, bytes, ms }) {
      events.push({
        type: "part",
        part: "web",
        name: "fetch",
        line: `fetched ${url} (HTTP ${status}, ${sizeOf(bytes)}, ${(ms / 1000).toFixed(1)} s)`,
        data: { url, status, bytes, ms },
      });
    },
  }) as Tool;
  const fetchOnly = options.fetch ? [webFetch] : [];
  const withSearch = [...fetchOnly, createWebSearchTool()];
  const forChild = options.fetchForChild ? fetchOnly : [];
  let host: PartHost | undefined;
  return {
    name: "web",
    attach(session) {
      host = session;
    },
    // A subagent fetches under the same gate: it asks the same person, under the same rules.
    tools: (offer) => {
      if (offer.forChild) return forChild;
      return options.search && searchOffered(host, offer) ? withSearch : fetchOnly;
    },
    eventsBefore: () => events.splice(0),
    eventsAfter: searchEvents,
    async close() {
      if (options.downloads) rmSync(options.downloads, { recursive: true, force: true });
      return [];
    },
  };
}

// The web part when only the provider's search was chosen, as it is by default on a hosted API:
// the search tool and its events, without web_fetch's address checks, gate, HTTP client and
// HTML converter, which a session that never fetches need not load before its first request.

import type { PartHost, SessionPart, ToolOffer } from "../core/part.js";
import type { Tool } from "../core/tool.js";
import { createWebSearchTool, searchEvents } from "./web-search.js";

/**
 * Whether search is offered for `offer`: it is the session's own (never a subagent's), and only
 * where the provider runs it (Anthropic's Messages API, OpenAI's Responses API). Asked at each
 * request, as /model may change the provider.
 */
export function searchOffered(host: PartHost | undefined, offer: ToolOffer): boolean {
  return !offer.forChild && host?.provider().webSearch === true;
}

export function createSearchPart(): SessionPart {
  const search: Tool[] = [createWebSearchTool()];
  const none: Tool[] = [];
  let host: PartHost | undefined;
  return {
    name: "web",
    attach(session) {
      host = session;
    },
    tools: (offer) => (searchOffered(host, offer) ? search : none),
    eventsAfter: searchEvents,
  };
}

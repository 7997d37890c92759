// OpenAI's hosted web search as the fake Responses server runs it: a reply scripted with
// `searches` answers with one `web_search_call` item per search (its action the query, and
// the sources read when the request includes `web_search_call.action.sources`) and a message
// whose text carries a `url_citation` annotation for the first URL. A request must offer the
// hosted tool for its reply to search, and an item the fake sent must come back exactly as it
// went. Shapes: https://developers.openai.com/api/docs/guides/tools-web-search (output and
// citations) and https://developers.openai.com/api/docs/api-reference/responses-streaming.

import { randomUUID } from "node:crypto";
import type { FakeReply } from "./fake-openai-chunks.js";

/** Each web_search_call item the fake sent, by id, as JSON: what must come back. */
export type IssuedSearches = Map<string, string>;

/** The tool object the hosted search is offered by, in its undated and dated names. */
export const HOSTED_SEARCH_TYPES = ["web_search", "web_search_2025_08_26"];

/** Why the request cannot get this reply: it was scripted to search, and offers no search. */
export function missingSearchTool(reply: FakeReply, body: Record<string, unknown>): string | null {
  if (!reply.searches?.length) return null;
  const tools = (body.tools ?? []) as { type?: unknown }[];
  if (tools.some((tool) => HOSTED_SEARCH_TYPES.includes(String(tool.type)))) return null;
  return "the fake was scripted to search the web, but the request offers no web_search tool";
}

/** The closed web_search_call items of a reply, recorded in `issued`. */
export function searchItems(
  reply: FakeReply,
  body: Record<string, unknown>,
  issued: IssuedSearches,
): Record<string, unknown>[] {
  const withSources = (body.include as unknown[] | undefined)?.includes(
    "web_search_call.action.sources",
  );
  return (reply.searches ?? []).map(({ query, urls }) => {
    const id = `ws_${randomUUID().replaceAll("-", "")}`;
    const action = {
      type: "search",
      query,
      queries: [query],
      ...(withSources ? { sources: urls.map((url) => ({ type: "url", url })) } : {}),
    };
    const item = { id, type: "web_search_call", status: "completed", action };
    issued.set(id, JSON.stringify(item));
    return item;
  });
}

/** The annotations of an answer's text: the first URL found, cited over the whole text. */
export function citations(reply: FakeReply, text: string): Record<string, unknown>[] {
  const url = reply.searches?.[0]?.urls[0];
  if (url === undefined) return [];
  return [{ type: "url_citation", start_index: 0, end_index: text.length, url, title: url }];
}

/** A web_search_call item in a request: one the fake sent, unchanged. */
export function problemWithSearchItem(
  item: Record<string, unknown>,
  issued: IssuedSearches,
): string | null {
  const sent = issued.get(String(item.id));
  if (sent === undefined) {
    return `Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false.`;
  }
  return sent === JSON.stringify(item) ? null : `Item '${String(item.id)}' was modified.`;
}

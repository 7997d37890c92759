// The provider's own web search, run on its servers: Anthropic's web search tool on the Messages
// API and OpenAI's hosted web_search on the Responses API (each provider sends its server tool
// in place of this tool's definition, which src/providers/server-tools.ts marks). agentloop
// neither calls it nor sees its pages; what it does see is kept and shown: the searches and the
// results found, as events after each reply that made any, each with its price, which the
// session adds to its cost. Chat Completions and the local model get no search.

import type { LoopEvent, PartEvent } from "../core/events.js";
import type { OpaqueBlock } from "../core/messages.js";
import type { Tool } from "../core/tool.js";
import { plural } from "../core/wording.js";
import { webSearchSchema } from "../providers/server-tools.js";

export const WEB_SEARCH = "web_search";

/**
 * The price of one search, the same on both APIs: $10 per 1,000 searches on Anthropic's
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool, usage and
 * pricing) and $10 per 1,000 calls on OpenAI's, where only a `search` action is a billed call
 * (https://developers.openai.com/api/docs/guides/tools-web-search, output and citations;
 * https://developers.openai.com/api/docs/pricing, built-in tools). Tokens are priced apart.
 */
export const SEARCH_DOLLARS = 0.01;

export function createWebSearchTool(): Tool {
  return {
    name: WEB_SEARCH,
    description:
      "Search the web. Runs on the model provider's servers; cite the pages you use from its results.",
    inputSchema: webSearchSchema(),
    // Only a provider that does not run server tools could send this call, and none is given it.
    async run() {
      return {
        content: "web_search runs on the provider's servers; it cannot run here.",
        isError: true,
      };
    },
  };
}

/** One event per search in a reply: its query, then what it found (titles and URLs). */
export function searchEvents(event: LoopEvent): PartEvent[] {
  if (event.type !== "assistant_message") return [];
  const queries = new Map<string, string>();
  const events: PartEvent[] = [];
  for (const block of event.message.content) {
    if (block.type !== "opaque") continue;
    const item = block.item;
    if (block.protocol === "responses") {
      if (item.type === "web_search_call") events.push(responsesSearch(item));
    } else if (item.type === "server_tool_use" && item.name === WEB_SEARCH) {
      const query = String((item.input as { query?: unknown } | undefined)?.query ?? "");
      queries.set(String(item.id), query);
    } else if (item.type === "web_search_tool_result") {
      const query = queries.get(String(item.tool_use_id)) ?? "";
      // @step web.search: Each search the provider ran in a reply is shown with what it found.
      events.push(anthropicSearch(query, item.content));
    }
  }
  return events;
}

const BASE = { type: "part", part: "web", name: "search" } as const;

interface Found {
  title: string;
  url: string;
}

/** Anthropic's result block: a list of results, or an error object with its code. */
function anthropicSearch(query: string, content: unknown): PartEvent {
  if (!Array.isArray(content)) {
    const code = String((content as { error_code?: unknown } | null)?.error_code ?? "unknown");
    return failed(query, code);
  }
  return searched(
    query,
    content.map((result: { title?: unknown; url?: unknown }) => ({
      title: String(result.title ?? ""),
      url: String(result.url ?? ""),
    })),
  );
}

/**
 * OpenAI's `web_search_call` item: its action is a `search` (queries and, as the request asks
 * with `include`, the sources read), or the model opening a page or finding text in it, which
 * is not a billed call. The item says nothing of a failure but its status.
 */
function responsesSearch(item: OpaqueBlock["item"]): PartEvent {
  const action = (item.action ?? {}) as {
    type?: unknown;
    query?: unknown;
    queries?: unknown;
    url?: unknown;
    sources?: unknown;
  };
  const queries = Array.isArray(action.queries) ? action.queries.map(String) : [];
  const query = queries.length > 0 ? queries.join("; ") : String(action.query ?? "");
  if (item.status === "failed") return failed(query, "failed");
  if (action.type !== "search") {
    const url = String(action.url ?? "");
    const verb = action.type === "find_in_page" ? "searched the page" : "opened";
    return { ...BASE, line: `web search ${verb} ${url}`, data: { action: action.type, url } };
  }
  const sources = Array.isArray(action.sources) ? action.sources : [];
  return searched(
    query,
    sources.map((source: { url?: unknown }) => ({ title: "", url: String(source.url ?? "") })),
  );
}

function failed(query: string, code: string): PartEvent {
  return {
    ...BASE,
    line: `web search for "${query}" failed: ${code}`,
    data: { query, error: code },
  };
}

function searched(query: string, results: Found[]): PartEvent {
  const urls = results.map((result) => result.url).join(", ");
  return {
    ...BASE,
    line: `searched the web for "${query}": ${plural(results.length, "result")}${urls ? ` (${urls})` : ""}, $${SEARCH_DOLLARS.toFixed(2)}`,
    data: { query, results, dollars: SEARCH_DOLLARS },
    dollars: SEARCH_DOLLARS,
  };
}

// The provider's own web search: Anthropic runs it on its servers (src/providers/anthropic.ts
// sends its server tool in place of this tool's definition, which its schema marks). agentloop neither calls it
// nor sees its pages; what it does see is kept and shown: the searches and the results found,
// as events after each reply that made any. Chat Completions and the local model get no search,
// and OpenAI's hosted search on the Responses API is not offered yet (docs/web.md says why).

import type { LoopEvent, PartEvent } from "../core/events.js";
import type { Tool } from "../core/tool.js";
import { plural } from "../core/wording.js";
import { webSearchSchema } from "../providers/anthropic.js";

export const WEB_SEARCH = "web_search";

/** Anthropic's price of one search: $10 per 1,000 (platform.claude.com, the tool's page). */
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
    if (block.type !== "opaque" || block.protocol !== "anthropic") continue;
    const item = block.item;
    if (item.type === "server_tool_use" && item.name === WEB_SEARCH) {
      const query = String((item.input as { query?: unknown } | undefined)?.query ?? "");
      queries.set(String(item.id), query);
    } else if (item.type === "web_search_tool_result") {
      const query = queries.get(String(item.tool_use_id)) ?? "";
      // @step web.search: Each search the provider ran in a reply is shown with what it found.
      events.push(found(query, item.content));
    }
  }
  return events;
}

function found(query: string, content: unknown): PartEvent {
  const base = { type: "part", part: "web", name: "search" } as const;
  if (!Array.isArray(content)) {
    const code = String((content as { error_code?: unknown } | null)?.error_code ?? "unknown");
    return {
      ...base,
      line: `web search for "${query}" failed: ${code}`,
      data: { query, error: code },
    };
  }
  const results = content.map((result: { title?: unknown; url?: unknown }) => ({
    title: String(result.title ?? ""),
    url: String(result.url ?? ""),
  }));
  const urls = results.map((result) => result.url).join(", ");
  return {
    ...base,
    line: `searched the web for "${query}": ${plural(results.length, "result")}${urls ? ` (${urls})` : ""}, $${SEARCH_DOLLARS.toFixed(2)}`,
    data: { query, results, dollars: SEARCH_DOLLARS },
  };
}

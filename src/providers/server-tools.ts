// A tool the provider runs on its own servers (its web search) is offered through the Tool seam
// like any other, so that --tools, the toolbox's list and the parts see it, with a mark on its
// input schema (src/web/web-search.ts). A provider that runs it sends its own server tool in its
// place: Anthropic's web search tool (anthropic.ts), OpenAI's hosted web_search on the Responses
// API (responses-request.ts).

import type { ToolDefinition } from "./provider.js";

const SERVER_TOOL_MARK = "x-agentloop-server-tool";

/** The schema that marks a tool as the provider's web search, run by the API, never by agentloop. */
export function webSearchSchema(): ToolDefinition["input_schema"] {
  return {
    type: "object",
    properties: {},
    [SERVER_TOOL_MARK]: "web_search",
  } as ToolDefinition["input_schema"];
}

export function isWebSearch(definition: ToolDefinition): boolean {
  const schema = definition.input_schema as unknown as Record<string, unknown>;
  return schema[SERVER_TOOL_MARK] === "web_search";
}

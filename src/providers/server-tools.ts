// Tools a provider runs on its own servers, such as Anthropic's web search. One is offered
// through the Tool seam like any other tool (so --tools, the toolbox's list and the parts see
// it), with a mark on its schema that says which server tool it stands for; the provider that
// runs it sends its own entry in place of a function tool. No other provider may be given one.

import type { ToolDefinition } from "../core/tool-definition.js";

/** The key of the mark on a server tool's input schema; its value names the server tool. */
const SERVER_TOOL_MARK = "x-agentloop-server-tool";

/** Server tools agentloop knows: Anthropic's web search (see src/web/web-search.ts). */
export type ServerToolKind = "anthropic_web_search";

/** A schema that marks its tool as `kind`, run by the provider, never by the toolbox. */
export function serverToolSchema(kind: ServerToolKind): ToolDefinition["input_schema"] {
  return {
    type: "object",
    properties: {},
    [SERVER_TOOL_MARK]: kind,
  } as ToolDefinition["input_schema"];
}

/** The server tool a definition stands for, or null for an ordinary (function) tool. */
export function serverToolOf(definition: ToolDefinition): ServerToolKind | null {
  const kind = (definition.input_schema as unknown as Record<string, unknown>)[SERVER_TOOL_MARK];
  return kind === "anthropic_web_search" ? kind : null;
}

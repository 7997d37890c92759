// What the rest of agentloop needs to know about MCP servers, said once, here: the layer its
// folder sits in (scripts/check-layers.ts reads it from the session's list). Its tools are the
// servers', named as each server names them, so --tools names none of them (docs/mcp.md says how
// a server's tools are allowed or denied). It imports nothing, so reading it loads nothing of it.

export const CHAPTER = {
  name: "mcp",
  /** Its folder is in the layer of this part: each runs beside the loop's own steps. */
  layerBeside: "compaction",
  tools: [],
  /** Keys only the person's own settings may set (USER_ONLY_KEYS in core/project-settings.ts). */
  userOnlySettings: ["enableAllProjectMcpServers", "enabledMcpjsonServers", "mcpServers"],
} as const;

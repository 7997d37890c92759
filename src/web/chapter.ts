// What the rest of agentloop needs to know about the web, said once, here: the layer its folder
// sits in (scripts/check-layers.ts reads it from the session's list) and the tools --tools and
// the "tools" setting accept. Both are in a hosted model's default set: web_search only where the
// API runs the search (the part offers none over Chat Completions), and web_fetch as Claude Code,
// gemini-cli and opencode offer theirs, kept safe by its address check and per-domain permission.
// A local model gets them, and a subagent web_fetch, only when a list names them.
// It imports nothing, so reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "web",
  /** Its folder is in the layer of this part: tools that reach outside the workspace. */
  layerBeside: "mcp",
  tools: ["web_fetch", "web_search"],
  inDefaultSetOf: "hosted models",
  /** Keys only the person's own settings may set (USER_ONLY_KEYS in core/project-settings.ts). */
  userOnlySettings: ["webFetch"],
} as const;

// What the rest of agentloop needs to know about plugins, said once, here: the layer its folder
// sits in (scripts/check-layers.ts reads it from the session's list). It offers no tool: the
// enabled plugins reach a session as component sources that the skills, agents, hooks and MCP
// parts read (part.ts), and `agentloop plugin` changes them. It imports nothing, so reading it
// loads nothing of the chapter.

export const CHAPTER = {
  name: "plugins",
  /** Its folder is in the layer of this part: it imports only core/. */
  layerBeside: "permissions",
  tools: [],
} as const;

// What the rest of agentloop needs to know about this chapter, said once, here: the layer its
// folder sits in (scripts/check-layers.ts reads it) and the names of its tools, which --tools
// and the "tools" setting accept (src/assembly/parts.ts passes them). It imports nothing, so
// reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "teams",
  /** Its folder is in the layer of this part: it runs loops of its own, as subagents do. */
  layerBeside: "agents",
  tools: ["send_message"],
} as const;

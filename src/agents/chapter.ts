// What the rest of agentloop needs to know about subagents (s06), said once, here: the layer its
// folder sits in (scripts/check-layers.ts reads it from the session's list) and the tool --tools
// and the "tools" setting accept. `agent` is in a hosted model's default set, as every agent
// people use offers its subagent tool; a local model's window is small, so it gets it only when
// a list names it. It imports nothing, so reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "agents",
  /** Its folder is in the layer of this part: both act on the session from above it. */
  layerBeside: "checkpoints",
  tools: ["agent"],
  inDefaultSetOf: "hosted models",
} as const;

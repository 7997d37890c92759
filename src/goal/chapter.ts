// What the rest of agentloop needs to know about the goal loop (s17), said once, here: the layer
// its folder sits in (scripts/check-layers.ts reads it from the session's list). It offers no
// tool: its judge is a tool-less request at the step before stopping. Its flags (--goal and its
// limits) are still read by src/command-line/config.ts. It imports nothing, so reading it loads
// nothing of the chapter.

export const CHAPTER = {
  name: "goal",
  /** Its folder is in the layer of this part: both act on the session from above it. */
  layerBeside: "checkpoints",
  tools: [],
} as const;

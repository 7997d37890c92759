// What the rest of agentloop needs to know about memory across sessions (s09), said once, here:
// the layer its folder sits in (scripts/check-layers.ts reads it from the session's list). Its
// `memory` tool comes with memory turned on (--memory, "memory" in the settings), not with a
// tools list. It imports nothing, so reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "memory",
  /** Its folder is in the layer of this part: each runs beside the loop's own steps. */
  layerBeside: "compaction",
  tools: [],
} as const;

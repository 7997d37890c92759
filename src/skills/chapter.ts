// What the rest of agentloop needs to know about skills (s07), said once, here: the layer its
// folder sits in (scripts/check-layers.ts reads it from the session's list) and the tool --tools
// and the "tools" setting accept. `skill` is in every default set; the part offers it only when
// there is a skill the model may load. It imports nothing, so reading it loads nothing of it.

export const CHAPTER = {
  name: "skills",
  /** Its folder is in the layer of this part: knowledge by files, beside memory across sessions. */
  layerBeside: "memory",
  tools: ["skill"],
} as const;

// What the rest of agentloop needs to know about the language servers' chapter, said once, here:
// the layer its folder sits in (scripts/check-layers.ts reads it from the session's list). It
// offers no tool: it joins a session through the tool-call hooks after each write and edit.
// It imports nothing, so reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "lsp",
  /** Its folder is in the layer of this part, whose tool-call hooks it works beside. */
  layerBeside: "hooks",
  tools: [],
} as const;

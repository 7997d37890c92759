// What the rest of agentloop needs to know about planning (s05), said once, here: the layer its
// folder sits in (scripts/check-layers.ts reads it from the session's list) and the tool
// --tools and the "tools" setting accept. todo_write is in a local model's default set only:
// small models lose track of a task of many steps first, while frontier models plan on their
// own and their default stays lean. Plan mode's own tools come with the mode, not with a list.
// It imports nothing, so reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "planning",
  /** Its folder is in the layer of this part, which holds plan mode's permission rules. */
  layerBeside: "permissions",
  tools: ["todo_write"],
  inDefaultSetOf: "local models",
} as const;

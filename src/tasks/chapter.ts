// What the rest of agentloop needs to know about the task board, said once, here: the layer its
// folder sits in (scripts/check-layers.ts reads it from the session's list) and the names of its
// tools, which --tools and the "tools" setting accept. They are in no default set: a session has
// them when a list names them or "tasks": true turns the board on (start.ts reads that setting).
// It imports nothing, so reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "tasks",
  /** Its folder is in the layer of this part: it imports core/ and tools/. */
  layerBeside: "permissions",
  tools: ["task_create", "task_list", "task_get", "task_update"],
  inDefaultSetOf: "no model",
} as const;

// What the rest of agentloop needs to know about background tasks (s11), said once, here: the
// layer its folder sits in (scripts/check-layers.ts reads it from the session's list). Its
// `task_stop` comes with `bash`, which starts the tasks, not with a tools list. It imports
// nothing, so reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "background",
  /** Its folder is in the layer of this part: it imports core/ and tools/. */
  layerBeside: "permissions",
  tools: [],
} as const;

// What the rest of agentloop needs to know about hooks (s04), said once, here: the layer its
// folder sits in (scripts/check-layers.ts reads it from the session's list). It offers no tool:
// the person's scripts run around each step, through the tool-call hooks and the step before
// stopping. It imports nothing, so reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "hooks",
  /** Its folder is in the layer of this part: each runs beside the loop's own steps. */
  layerBeside: "compaction",
  tools: [],
  /** Keys only the person's own settings may set (USER_ONLY_KEYS in core/project-settings.ts). */
  userOnlySettings: ["allowProjectHooks", "claudeProjectHooks"],
} as const;

// What the rest of agentloop needs to know about memory across sessions (s09), said once, here:
// the layer its folder sits in (scripts/check-layers.ts reads it from the session's list) and its
// flag, which the command line and --help read from there. Its `memory` tool comes with memory
// turned on (--memory, "memory" in the settings), not with a tools list. It imports nothing, so
// reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "memory",
  /** Its folder is in the layer of this part: each runs beside the loop's own steps. */
  layerBeside: "compaction",
  tools: [],
  /** Keys only the person's own settings may set (USER_ONLY_KEYS in core/project-settings.ts). */
  userOnlySettings: ["memory"],
  /** On, whatever the person's settings say; the part reads it as PartContext.flags.memory. */
  flags: [
    {
      name: "memory",
      kind: "boolean",
      help: ['remember across sessions (or "memory": true in your settings)'],
    },
  ],
} as const;

// What the rest of agentloop needs to know about this chapter, said once, here: the layer its
// folder sits in (scripts/check-layers.ts reads it), the names of its tools, which --tools and
// the "tools" setting accept (src/assembly/parts.ts passes them), and its flag, which the command
// line and --help read. It imports nothing, so reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "teams",
  /** Its folder is in the layer of this part: it runs loops of its own, as subagents do. */
  layerBeside: "agents",
  /**
   * The chapters it is built on: its own files import theirs (a teammate is an agent working from
   * the board), which is this chapter's reach, not theirs (test/chapters.test.ts counts it so).
   */
  buildsOn: ["agents", "tasks"],
  tools: ["send_message"],
  /** Offered only to a session that leads a team ("teams": true or --teams), whatever the list. */
  inDefaultSetOf: "no model",
  /** Keys only the person's own settings may set (USER_ONLY_KEYS in core/project-settings.ts). */
  userOnlySettings: ["teams"],
  /** A team, whatever the person's settings say; start.ts reads it as PartContext.flags.teams. */
  flags: [
    {
      name: "teams",
      kind: "boolean",
      help: [
        "the agent tool may start teammates that work beside the session",
        'and message each other (or "teams": true in your settings)',
      ],
    },
  ],
} as const;

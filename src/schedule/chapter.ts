// What the rest of agentloop needs to know about this chapter, said once, here: the layer its
// folder sits in (scripts/check-layers.ts reads it) and the names of its tools, which --tools
// and the "tools" setting accept and the default set holds (src/assembly/parts.ts passes them).
// It imports nothing, so reading it loads nothing of the chapter.

export const CHAPTER = {
  name: "schedule",
  /** Its folder is in the layer of this part: it imports only core/. */
  layerBeside: "web",
  tools: ["cron_create", "cron_list", "cron_delete"],
} as const;

export type ScheduleToolName = (typeof CHAPTER.tools)[number];

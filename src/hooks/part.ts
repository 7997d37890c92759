// The hooks part (s04): the user's scripts around the session's steps. Their tool-call hooks
// wrap each call; SessionStart runs as each history begins and, with UserPromptSubmit, gives the
// model context beside the next prompt (or refuses it); Stop may send the model back to work;
// PreCompact runs before a summary; SessionEnd when the session closes. Every run is an event.

import type { HookRunEvent, LoopEvent } from "../core/events.js";
import type { SessionPart } from "../core/part.js";
import type { PreparedHooks } from "./prepare.js";

/** `onNotice` tells the person what no one reads from the stream any more (a SessionEnd failure). */
export function createHooksPart(
  prepared: PreparedHooks,
  onNotice: (sentence: string) => void,
): SessionPart {
  const hooks = prepared.sessionHooks;
  if (!hooks) return { name: "hooks" };
  const ending = new AbortController();
  // SessionStart runs at once; what it gives the model goes with the next prompt.
  let started: Promise<string[]> | null = null;
  let context: string[] = [];
  return {
    name: "hooks",
    toolHooks: prepared.toolHooks,
    stopCheck: () => hooks.stopCheck(),
    historyStarted(start) {
      started = hooks.sessionStart(start, ending.signal);
    },
    async screenPrompt(prompt, signal) {
      const fromStart = (await started) ?? [];
      const submitted = await hooks.promptSubmitted(prompt, signal);
      if ("block" in submitted) {
        return `A UserPromptSubmit hook blocked the prompt, which was not sent: ${submitted.block}`;
      }
      started = null;
      context = [...fromStart, ...submitted.context];
      return null;
    },
    promptNotes() {
      const given = context;
      context = [];
      if (given.length === 0) return [];
      return [{ text: `[agentloop: context from the user's hooks]\n${given.join("\n\n")}` }];
    },
    beforeCompact: (trigger, focus, signal) => hooks.beforeCompact(trigger, focus, signal),
    eventsBefore: (): LoopEvent[] => hooks.takeRuns(),
    async close() {
      await hooks.sessionEnd(ending.signal);
      const runs: HookRunEvent[] = hooks.takeRuns();
      // No one reads events any more: a failure is told on stderr.
      for (const run of runs) {
        if (run.decision !== "error") continue;
        onNotice(`the ${run.event} hook "${run.command}" failed: ${run.reason}`);
      }
      ending.abort();
      return runs;
    },
  };
}

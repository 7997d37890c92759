// The hooks of a session's steps outside the tool calls: SessionStart and SessionEnd,
// UserPromptSubmit before a prompt is sent, Stop before an answer ends the run, PreCompact
// before a summary. The session (src/session/agent-session.ts) calls these at its steps; the
// loop asks `stopCheck` through its `beforeStop` seam.

import type { CompactionTrigger, HookRunEvent } from "../core/events.js";
import type { HistoryStart, StopCheck } from "../core/part.js";
import type { HookRunner } from "./runner.js";

/** Blocks in a row after which a Stop hook is no longer obeyed: the next one ends the run. */
export const MAX_STOP_BLOCKS = 8;

/** What started a history, SessionStart's `source`. */
export type SessionStartSource = HistoryStart;

export interface SessionHooks {
  takeRuns(): HookRunEvent[];
  /** The text the SessionStart hooks give the model, for the next prompt. */
  sessionStart(source: SessionStartSource, signal: AbortSignal): Promise<string[]>;
  /** A block drops the prompt; otherwise the text the hooks add to it. */
  promptSubmitted(
    prompt: string,
    signal: AbortSignal,
  ): Promise<{ block: string } | { context: string[] }>;
  /** A fresh check for one prompt's run: it counts the Stop hooks' blocks in a row. */
  stopCheck(): StopCheck;
  /** The same for one subagent's run, with the SubagentStop hooks (matched by the agent's type). */
  subagentStopCheck(agent: { type: string; id: string; transcript: string }): StopCheck;
  beforeCompact(
    trigger: CompactionTrigger,
    focus: string | undefined,
    signal: AbortSignal,
  ): Promise<void>;
  sessionEnd(signal: AbortSignal): Promise<void>;
}

/** `onNotice` tells the person at once what they must not miss (a run ended by the Stop limit). */
export function createSessionHooks(
  runner: HookRunner,
  onNotice: (sentence: string) => void,
): SessionHooks {
  /** Counts the blocks in a row of one run's Stop (or SubagentStop) hooks, up to the limit. */
  function stopCheck(
    event: "Stop" | "SubagentStop",
    about: Record<string, unknown>,
    match: string | undefined,
  ): StopCheck {
    let blocks = 0;
    return async (answer, signal) => {
      const fields = { ...about, stop_hook_active: blocks > 0, last_assistant_message: answer };
      const fired = await runner.fire(event, fields, { match, signal });
      if (fired.block === null) return null;
      blocks += 1;
      if (blocks > MAX_STOP_BLOCKS) {
        const detail = `The ${event} hooks blocked ${blocks} times in a row; the run ends here, as they may send the model on at most ${MAX_STOP_BLOCKS} times.`;
        onNotice(detail);
        return { detail };
      }
      return { goOn: `${event} hook feedback: ${fired.block}` };
    };
  }
  return {
    takeRuns: () => runner.takeRuns(),
    async sessionStart(source, signal) {
      return (await runner.fire("SessionStart", { source }, { match: source, signal })).context;
    },
    async promptSubmitted(prompt, signal) {
      const fired = await runner.fire("UserPromptSubmit", { prompt }, { signal });
      return fired.block === null ? { context: fired.context } : { block: fired.block };
    },
    stopCheck: () => stopCheck("Stop", {}, undefined),
    subagentStopCheck: (agent) =>
      stopCheck(
        "SubagentStop",
        { agent_id: agent.id, agent_type: agent.type, agent_transcript_path: agent.transcript },
        agent.type,
      ),
    async beforeCompact(trigger, focus, signal) {
      // Claude Code's two triggers: the user's /compact, or agentloop's own decision.
      const claudeTrigger = trigger === "manual" ? "manual" : "auto";
      const fields = { trigger: claudeTrigger, custom_instructions: focus ?? "" };
      await runner.fire("PreCompact", fields, { match: claudeTrigger, signal });
    },
    async sessionEnd(signal) {
      await runner.fire("SessionEnd", { reason: "other" }, { match: "other", signal });
    },
  };
}

// Plan mode (chapter s05, Claude Code's "plan" permission mode): look, then propose, then act on
// approval. The permission check keeps the rules (commands in a read-only sandbox, the file tools
// writing the plan file only); this part keeps what the model is told of them and when, where
// the plan is, and how a run that no one can approve ends: with its plan as the answer.

import type { Limit } from "../core/limits.js";
import type { PermissionMode } from "../permissions/policy.js";

export interface PlanMode {
  /** The session's plan file, in the session's own directory (it changes with /clear). */
  file(): string;
  /**
   * The note for the next prompt when the mode went into or out of plan mode since the model
   * was last told of it: plan mode's rules and the plan file, or that plan mode is over.
   */
  noteFor(mode: PermissionMode): string | null;
  /** The model was told of `mode` another way (exit_plan_mode's result), or of nothing yet. */
  told(mode: PermissionMode | null): void;
  /** A run that no one can approve (headless) ends with this plan as its answer. */
  present(plan: string): void;
  /** Stops the loop before its next request once a plan was presented. */
  limit: Limit;
  /** Plan mode restated beside a compaction's summary, or null outside plan mode. */
  restated(mode: PermissionMode): string | null;
}

export const EXIT_PLAN_MODE = "exit_plan_mode";

export function createPlanMode(options: { file: () => string }): PlanMode {
  let toldOf: PermissionMode | null = null;
  let presented: string | null = null;
  return {
    file: options.file,
    noteFor(mode) {
      const previous = toldOf;
      toldOf = mode;
      if (mode === "plan" && previous !== "plan") return planModeRules(options.file());
      if (previous === "plan" && mode !== "plan") return planModeOver(mode);
      return null;
    },
    told(mode) {
      toldOf = mode;
    },
    present(plan) {
      presented = plan;
    },
    limit() {
      if (presented === null) return null;
      const answer = presented.trimEnd();
      presented = null;
      return {
        reason: "end_turn",
        detail:
          "Plan mode: the plan is the answer, and nothing was changed. To carry it out, approve it in the REPL (agentloop --continue) or run again in another permission mode.",
        answer,
      };
    },
    restated(mode) {
      if (mode !== "plan") return null;
      return `[agentloop] Plan mode is still on, as when the earlier turns were summarised. ${rulesOf(options.file())}`;
    },
  };
}

function planModeRules(file: string): string {
  return `[agentloop: plan mode is on. ${rulesOf(file)}]`;
}

function rulesOf(file: string): string {
  return (
    "Look, then propose: explore with read and with bash commands that only read (they run in a " +
    `read-only sandbox), and change no file but your plan, ${file}, which you write with the ` +
    "write and edit tools. Keep the steps of the work with todo_write. When the plan is ready, " +
    `call ${EXIT_PLAN_MODE}: the user reads it, then approves it or tells you what to change.`
  );
}

function planModeOver(mode: PermissionMode): string {
  return `[agentloop: plan mode is off; the permission mode is now ${mode}, so you may change files again as it allows.]`;
}

// The exit_plan_mode tool (gemini-cli's name for it; Claude Code's ExitPlanMode): in plan mode the
// model calls it once its plan is in the plan file. The person reads the plan and approves it,
// choosing the mode the work goes on in, or says what to change and plan mode goes on. With no one
// to ask (a headless run), the plan is presented as the run's answer.

import { readFile } from "node:fs/promises";
import type { ModeSwitch } from "../permissions/mode-switch.js";
import type { PermissionMode } from "../permissions/policy.js";
import { failure, success, type Tool } from "../tools/tool.js";
import { EXIT_PLAN_MODE, type PlanMode } from "./plan-mode.js";

/** What the person answered when shown the plan. */
export type PlanVerdict =
  | { kind: "approved"; mode: PermissionMode }
  | { kind: "rejected"; feedback: string }
  /** Ctrl-C instead of an answer: the turn is being interrupted. */
  | { kind: "interrupted" };

export interface ExitPlanModeOptions {
  plan: PlanMode;
  modes: ModeSwitch;
  /** Shows the plan to the person and asks; absent when no one can answer (headless). */
  approve?: (plan: string, file: string) => Promise<PlanVerdict>;
}

export function createExitPlanModeTool(options: ExitPlanModeOptions): Tool<Record<string, never>> {
  const { plan, modes } = options;
  return {
    name: EXIT_PLAN_MODE,
    description:
      "Ask the user to approve your plan and end plan mode. In plan mode you only look: read " +
      "files, run commands that only read (they run in a read-only sandbox), keep steps with " +
      "todo_write, and write nothing but the plan file named when plan mode began. Once the plan " +
      "is written there, call this: the user reads it, then either approves it, and you carry it " +
      "out, or says what to change, and you revise it and call this again.",
    inputSchema: { type: "object", properties: {} },
    // It changes no file: the person's answer changes the mode, which is the point of asking.
    isReadOnly: () => true,
    async run() {
      if (modes.current() !== "plan") {
        return failure(
          `Plan mode is not on (the permission mode is ${modes.current()}), so there is no plan to approve; go on with the task.`,
        );
      }
      const file = plan.file();
      const text = await readFile(file, "utf8").catch(() => "");
      if (text.trim() === "") {
        return failure(
          `There is no plan yet: write it to ${file} with the write tool, then call ${EXIT_PLAN_MODE} again.`,
        );
      }
      if (!options.approve) {
        plan.present(text);
        return success(
          "No one can approve the plan in this run (it has no terminal), so the run ends here with the plan as its answer.",
        );
      }
      // @step tool.exit_plan_mode: The person approves the plan, or says what to change.
      const verdict = await options.approve(text, file);
      switch (verdict.kind) {
        case "approved":
          return approved(verdict.mode);
        case "rejected":
          return failure(
            verdict.feedback.trim()
              ? `The user did not approve the plan. They said: "${verdict.feedback.trim()}". Plan mode goes on: revise the plan in ${file}, then call ${EXIT_PLAN_MODE} again.`
              : `The user did not approve the plan and gave no reason. Plan mode goes on: ask them what to change.`,
          );
        case "interrupted":
          return failure(
            "Interrupted by the user when asked to approve the plan; plan mode goes on.",
          );
      }
    },
  };

  async function approved(mode: PermissionMode) {
    try {
      await modes.change(mode);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return failure(
        `The user approved the plan, but ${mode} mode cannot start here: ${why} Plan mode goes on; tell the user.`,
      );
    }
    plan.told(mode);
    return success(
      `The user approved the plan. Plan mode is over: the session goes on in ${mode} mode. Carry out the plan now, step by step.`,
    );
  }
}

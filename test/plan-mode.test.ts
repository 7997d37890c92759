// Plan mode's parts on their own: what the model is told and when, the exit_plan_mode tool's
// answers with a real plan file, the person's answer as typed, and the mode switch that changes
// only once the new mode can start.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLoopState } from "../src/loop.js";
import { createModeSwitch } from "../src/permissions/mode-switch.js";
import type { PermissionMode } from "../src/permissions/policy.js";
import { createExitPlanModeTool, type PlanVerdict } from "../src/planning/exit-plan-mode.js";
import { createPlanMode } from "../src/planning/plan-mode.js";
import { parsePlanAnswer, planQuestion } from "../src/terminal/plan-approval.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true });
});

function planFile(content?: string): string {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-plan-"));
  directories.push(directory);
  const file = join(directory, "plan.md");
  if (content !== undefined) writeFileSync(file, content);
  return file;
}

const signal = new AbortController().signal;

describe("what the model is told of plan mode", () => {
  const plan = createPlanMode({ file: () => "/state/sessions/s1/plan.md" });

  it("is told the rules and the plan file once, when plan mode begins, and when it ends", () => {
    expect(plan.noteFor("ask")).toBeNull();
    const rules = plan.noteFor("plan");
    expect(rules).toMatch(/^\[agentloop: plan mode is on\. /);
    expect(rules).toContain("change no file but your plan, /state/sessions/s1/plan.md, which");
    expect(plan.noteFor("plan")).toBeNull();
    expect(plan.noteFor("auto")).toBe(
      "[agentloop: plan mode is off; the permission mode is now auto, so you may change files again as it allows.]",
    );
    expect(plan.noteFor("auto")).toBeNull();
  });

  it("is not told again what exit_plan_mode's result said; a new history is told anew", () => {
    plan.told(null);
    expect(plan.noteFor("plan")).not.toBeNull();
    plan.told("ask");
    expect(plan.noteFor("ask")).toBeNull();
    plan.told(null);
    expect(plan.noteFor("plan")).not.toBeNull();
  });

  it("is restated after a compaction only while plan mode lasts", () => {
    expect(plan.restated("plan")).toMatch(/^\[agentloop\] Plan mode is still on/);
    expect(plan.restated("ask")).toBeNull();
  });
});

describe("the exit_plan_mode tool", () => {
  function tool(file: string, mode: PermissionMode, approve?: () => Promise<PlanVerdict>) {
    const plan = createPlanMode({ file: () => file });
    const modes = createModeSwitch(mode, async (next) => {
      if (next === "auto") throw new Error("The sandbox cannot start here.");
    });
    return { plan, modes, exit: createExitPlanModeTool({ plan, modes, approve }) };
  }

  it("approved, goes on in the mode the person chose", async () => {
    const { exit, modes } = tool(planFile("1. Do it.\n"), "plan", async () => ({
      kind: "approved",
      mode: "ask",
    }));
    expect(await exit.run({}, { signal })).toEqual({
      content:
        "The user approved the plan. Plan mode is over: the session goes on in ask mode. Carry out the plan now, step by step.",
      isError: false,
    });
    expect(modes.current()).toBe("ask");
  });

  it("approved for a mode that cannot start, stays in plan mode and says why", async () => {
    const { exit, modes } = tool(planFile("1. Do it.\n"), "plan", async () => ({
      kind: "approved",
      mode: "auto",
    }));
    const result = await exit.run({}, { signal });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("auto mode cannot start here: The sandbox cannot start here.");
    expect(modes.current()).toBe("plan");
  });

  it("shows the person the plan file's text", async () => {
    const shown: string[] = [];
    const file = planFile("1. Do it.\n");
    const { exit } = tool(file, "plan", async () => {
      shown.push("asked");
      return { kind: "rejected", feedback: "" };
    });
    const result = await exit.run({}, { signal });
    expect(shown).toEqual(["asked"]);
    expect(result).toEqual({
      content:
        "The user did not approve the plan and gave no reason. Plan mode goes on: ask them what to change.",
      isError: true,
    });
  });

  it("asks for a plan first when the plan file is missing or empty", async () => {
    for (const file of [planFile(), planFile("  \n")]) {
      const result = await tool(file, "plan", async () => {
        throw new Error("not asked");
      }).exit.run({}, { signal });
      expect(result).toEqual({
        content: `There is no plan yet: write it to ${file} with the write tool, then call exit_plan_mode again.`,
        isError: true,
      });
    }
  });

  it("outside plan mode, says there is nothing to approve", async () => {
    const result = await tool(planFile("1. Do it.\n"), "ask").exit.run({}, { signal });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Plan mode is not on \(the permission mode is ask\)/);
  });

  it("with no one to ask, presents the plan: the loop stops before its next request with it", async () => {
    const { exit, plan } = tool(planFile("1. Do it.\n"), "plan");
    const state = createLoopState();
    expect(plan.limit(state)).toBeNull();
    expect((await exit.run({}, { signal })).isError).toBe(false);
    expect(plan.limit(state)).toMatchObject({ reason: "end_turn", answer: "1. Do it." });
    expect(plan.limit(state)).toBeNull();
  });
});

describe("the person's answer to a plan", () => {
  it.each([
    ["y", { kind: "approved", mode: "ask" }],
    ["Yes", { kind: "approved", mode: "ask" }],
    ["a", { kind: "approved", mode: "auto" }],
    ["auto", { kind: "approved", mode: "auto" }],
    ["n", { kind: "rejected", feedback: "" }],
    ["no add a test first", { kind: "rejected", feedback: "add a test first" }],
    ["  add a test first ", { kind: "rejected", feedback: "add a test first" }],
    ["", { kind: "rejected", feedback: "" }],
  ])("%j is %j", (line, verdict) => {
    expect(parsePlanAnswer(line)).toEqual(verdict);
  });

  it("is asked under the plan, a line of it each", () => {
    expect(planQuestion("# Plan\n\n1. Do it.\n", "/s/plan.md")).toEqual({
      headline: "Approve this plan (/s/plan.md)?",
      detail: ["# Plan", "", "1. Do it."],
      choices: "[y]es, go on in ask mode; [a]uto, go on in auto mode; or say what to change:",
    });
  });
});

describe("the mode switch", () => {
  it("changes only once the new mode is ready, and says so once per change", async () => {
    const heard: string[] = [];
    const modes = createModeSwitch("ask", async (mode) => {
      if (mode === "read-only") throw new Error("no sandbox");
    });
    modes.onChange((mode, previous) => heard.push(`${previous}->${mode}`));
    await modes.change("plan");
    await modes.change("plan");
    await expect(modes.change("read-only")).rejects.toThrow("no sandbox");
    expect(modes.current()).toBe("plan");
    await modes.change("ask");
    expect(heard).toEqual(["ask->plan", "plan->ask"]);
  });
});

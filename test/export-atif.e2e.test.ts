// `agentloop export --format atif` of sessions recorded through the built CLI against the fake
// model: one with tool calls, a subagent and a compaction passes every rule of the ATIF RFC that
// applies (test/support/atif-validator.ts), and a run killed mid-write still exports a valid
// partial trajectory.

import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { atifProblems } from "./support/atif-validator.js";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  runCli,
  runStreamJson,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";

const SUMMARY_REQUEST = "[agentloop] The conversation has grown too long";

type Trajectory = {
  session_id: string;
  notes?: string;
  agent: { name: string; version: string };
  steps: {
    source: string;
    message: string;
    tool_calls?: { tool_call_id: string; function_name: string; arguments: unknown }[];
    observation?: {
      results: {
        source_call_id?: string;
        content?: string;
        subagent_trajectory_ref?: { trajectory_id: string }[];
      }[];
    };
    metrics?: { prompt_tokens: number };
    extra?: { compaction?: { kind: string } };
  }[];
  final_metrics: { total_prompt_tokens: number; total_steps: number; total_cost_usd?: number };
  subagent_trajectories?: (Trajectory & { trajectory_id: string })[];
};

/** A command printing about 25 KB, so that a few of them fill a small window. */
const noisy = (k: number) => `yes "line of step ${k}" | head -c 25000; echo; echo END-${k}`;
/** Notes of about 30 KB beside a call: clearing old results cannot make room for them. */
const notes = (k: number) => `Notes on step ${k}: the build log says it compiled. `.repeat(600);

/** The task: a subagent that runs a command, then three noisy commands, then the answer. */
const TASK: FakeTurn[] = [
  reply(toolUse("call_agent", "agent", { description: "count files", prompt: "count the files" })),
  reply(toolUse("child_bash", "bash", { command: "echo child-counted" })),
  reply(text("There are no files.")),
  reply(text(notes(1)), toolUse("call_1", "bash", { command: noisy(1) })),
  reply(text(notes(2)), toolUse("call_2", "bash", { command: noisy(2) })),
  reply(text(notes(3)), toolUse("call_3", "bash", { command: noisy(3) })),
  reply(text("All steps ran.")),
];

describe("agentloop export --format atif", () => {
  let model: FakeModel;
  let sandbox: Sandbox;
  let sessionPath: string;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
    sandbox = freshSandbox();
    const answerSummaries = {
      intercept: ({ lastUserText }: { lastUserText: string }) =>
        lastUserText.includes(SUMMARY_REQUEST) ? reply(text("Steps ran one by one.")) : undefined,
    };
    const { result } = await runStreamJson(
      model,
      sandbox,
      TASK,
      ["--model", "claude-sonnet-5-5", "--context-window", "30000", "run the steps"],
      answerSummaries,
    );
    expect(result.code, result.stderr).toBe(0);
    sessionPath = onlySession(sandbox).path;
  });
  afterAll(() => model.close());

  async function exportOf(args: string[]): Promise<Trajectory> {
    const run = await runCli(["export", "--format", "atif", ...args], {
      env: sandbox.env,
      cwd: sandbox.workspace,
    });
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as Trajectory;
  }

  it("passes the RFC's rules, with the tool calls, the subagent's run and the compaction", async () => {
    const trajectory = await exportOf([]);
    expect(atifProblems(trajectory)).toEqual([]);
    expect(trajectory.agent.name).toBe("agentloop");
    expect(trajectory.steps[0]).toMatchObject({ source: "user", message: "run the steps" });

    const calls = trajectory.steps.flatMap((step) => step.tool_calls ?? []);
    expect(calls.map((call) => call.function_name)).toEqual(["agent", "bash", "bash", "bash"]);
    expect(calls[1]?.arguments).toEqual({ command: noisy(1) });
    const results = trajectory.steps.flatMap((step) => step.observation?.results ?? []);
    expect(results.find((each) => each.source_call_id === "call_3")?.content).toContain("END-3");

    // The agent call's result points at the child's run, embedded with its own bash call.
    const delegated = results.find((each) => each.source_call_id === "call_agent");
    const ref = delegated?.subagent_trajectory_ref?.[0]?.trajectory_id;
    const child = trajectory.subagent_trajectories?.find((each) => each.trajectory_id === ref);
    expect(
      child?.steps.flatMap((step) => step.tool_calls ?? []).map((call) => call.tool_call_id),
    ).toEqual(["child_bash"]);
    expect(atifProblems(child)).toEqual([]);

    const kinds = trajectory.steps.flatMap((step) => step.extra?.compaction?.kind ?? []);
    // Both ways of compacting: old results cleared (a system step), then a summary (the model
    // request it was, an agent step with its tokens).
    expect(kinds).toContain("clear");
    expect(kinds).toContain("summary");
    const summary = trajectory.steps.find((step) => step.extra?.compaction?.kind === "summary");
    expect(summary).toMatchObject({ source: "agent", message: "Steps ran one by one." });
    expect(summary?.metrics?.prompt_tokens).toBeGreaterThan(0);
    expect(trajectory.final_metrics.total_prompt_tokens).toBeGreaterThan(0);
    // Every step's model is priced in the table, so the total cost is known.
    expect(trajectory.final_metrics.total_cost_usd).toBeGreaterThan(0);
  });

  it("exports a session cut off mid-line by a kill as a valid partial trajectory", async () => {
    const whole = readFileSync(sessionPath, "utf8");
    const cutAt = whole.indexOf('"call_2"');
    // Beside the original, whose subagent transcript it names relative to its directory.
    const killed = join(dirname(sessionPath), "killed.jsonl");
    writeFileSync(killed, whole);
    truncateSync(killed, cutAt);
    const trajectory = await exportOf([killed]);
    expect(atifProblems(trajectory)).toEqual([]);
    const calls = trajectory.steps.flatMap((step) => step.tool_calls ?? []);
    expect(calls.map((call) => call.tool_call_id)).toEqual(["call_agent", "call_1"]);
    expect(trajectory.subagent_trajectories).toHaveLength(1);
    expect(trajectory.notes).toBe("Left out 1 unreadable line(s) of the session file.");
    expect(trajectory.final_metrics.total_steps).toBe(trajectory.steps.length);
  });

  it("a run stopped by SIGTERM mid-command (the Harbor adapter's deadline) ends with its result and exports", async () => {
    const stopped = freshSandbox();
    model.script([
      reply(toolUse("long", "bash", { command: "sleep 30" })),
      reply(text("unreached")),
    ]);
    let sentTerm = false;
    const run = await runCli([...model.flags, "--output-format", "stream-json", "wait a while"], {
      env: { ...stopped.env, ...model.env() },
      cwd: stopped.workspace,
      onSpawn(child) {
        // SIGTERM once the command is running, as `timeout` sends it at the deadline.
        child.stdout?.on("data", (chunk: Buffer) => {
          if (!sentTerm && chunk.toString().includes('"tool_start"')) {
            sentTerm = true;
            child.kill("SIGTERM");
          }
        });
      },
    });
    model.script([]);
    expect(sentTerm).toBe(true);
    expect(run.code).toBe(130);
    const last = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(last).toMatchObject({ type: "result", subtype: "error_interrupted" });
    const exported = await runCli(["export", "--format", "atif"], {
      env: stopped.env,
      cwd: stopped.workspace,
    });
    expect(exported.code, exported.stderr).toBe(0);
    const trajectory = JSON.parse(exported.stdout) as Trajectory;
    expect(atifProblems(trajectory)).toEqual([]);
    expect(
      trajectory.steps.flatMap((step) => step.tool_calls ?? []).map((call) => call.tool_call_id),
    ).toEqual(["long"]);
  });

  it("writes to a file with -o, and refuses a format it does not have in one sentence", async () => {
    const file = join(sandbox.workspace, "trajectory.json");
    const written = await runCli(["export", "--format", "atif", "-o", file], {
      env: sandbox.env,
      cwd: sandbox.workspace,
    });
    expect(written.code).toBe(0);
    expect(atifProblems(JSON.parse(readFileSync(file, "utf8")))).toEqual([]);
    const refused = await runCli(["export", "--format", "otel"], {
      env: sandbox.env,
      cwd: sandbox.workspace,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe('agentloop: Unknown export format "otel": choose atif.');
  });
});

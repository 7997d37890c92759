// runTask, the library function under every batch command: one attempt of one task, from a
// fresh workspace to a result on disk, called directly as another program would.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTask } from "../src/batch/run-task.js";
import { type BatchModel, batchPrompt, startBatchModel } from "./support/batch-model.js";
import { CLI, freshSandbox } from "./support/cli-harness.js";

describe("runTask", () => {
  let model: BatchModel;
  beforeAll(async () => {
    model = await startBatchModel();
  });
  afterAll(() => model.close());

  it("runs the agent in an empty workspace and returns the result it wrote", async () => {
    const place = freshSandbox();
    const out = join(place.home, "out");
    const costs: number[] = [];
    const result = await runTask({
      task: { id: "lib", prompt: batchPrompt("lib", "echo hi > hi.txt"), metadata: { n: 1 } },
      out,
      attempt: 1,
      workParent: join(place.home, "work"),
      repoBase: place.workspace,
      agent: {
        argv: [process.execPath, CLI],
        flags: ["--permission-mode", "yolo"],
        env: { ...place.env, ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: model.url },
        model: "claude-sonnet-4-5",
      },
      onCost: (cost) => costs.push(cost),
    });
    expect(result).toMatchObject({
      id: "lib",
      status: "success",
      exit_code: 0,
      num_turns: 2,
      result: "done lib",
      error: null,
      metadata: { n: 1 },
    });
    const written = JSON.parse(readFileSync(join(out, "tasks", "lib", "result.json"), "utf8"));
    expect(written).toEqual(result);
    expect(readFileSync(join(out, "tasks", "lib", "patch.diff"), "utf8")).toContain("+hi");
    // Live cost as the agent reported usage, then the result's own figure.
    expect(costs.length).toBeGreaterThanOrEqual(2);
    expect(costs.at(-1)).toBe(result.total_cost_usd);
  });
});

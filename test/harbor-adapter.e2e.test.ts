// The Harbor adapter's run line (integrations/harbor), made by its own Python code and run by
// bash with the built CLI as `agentloop`, against the fake model: the flags it passes are ones
// agentloop takes, the task runs headless with a tool call, and the log directory ends up with
// the stream-json, the exit code and a trajectory that passes the ATIF rules.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { atifProblems } from "./support/atif-validator.js";
import { CLI, type FakeModel, freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { runProcess } from "./support/run-process.js";

const ADAPTER = resolve(import.meta.dirname, "../integrations/harbor");

/** The adapter's shell line for `instruction`, from its own `run_command`. */
async function adapterLine(instruction: string, agentDir: string): Promise<string> {
  const program = [
    "import sys",
    "from pathlib import PurePosixPath",
    `sys.path[:0] = [${JSON.stringify(ADAPTER)}, ${JSON.stringify(join(ADAPTER, "stubs"))}]`,
    "from agentloop_harbor.agent import run_command",
    "print(run_command(sys.argv[1], provider='anthropic', model='claude-sonnet-5-5',",
    "    agent_dir=PurePosixPath(sys.argv[2]), deadline_sec=120, max_turns=10))",
  ].join("\n");
  const made = await runProcess("python3", ["-c", program, instruction, agentDir], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PYTHONDONTWRITEBYTECODE: "1" },
    cwd: ADAPTER,
  });
  expect(made.code, made.stderr).toBe(0);
  return made.stdout.trim();
}

describe("the Harbor adapter's run, with the real CLI", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("runs the task headless and leaves stream-json, the exit code and a valid trajectory", async () => {
    const sandbox = freshSandbox();
    const logs = join(sandbox.home, "logs", "agent");
    mkdirSync(logs, { recursive: true });
    // `agentloop` on PATH is this build, as `npm install -g` would make it.
    const bin = join(sandbox.home, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "agentloop"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(bin, "agentloop"), 0o755);

    const line = await adapterLine("Create done.txt; it's the task.", logs);
    model.script([
      reply(toolUse("t1", "bash", { command: "echo ok > done.txt" })),
      reply(text("Created done.txt.")),
    ]);
    const ran = await runProcess("bash", ["-c", line], {
      env: {
        ...sandbox.env,
        ...model.env(),
        PATH: `${bin}:${sandbox.env.PATH}`,
        XDG_STATE_HOME: join(logs, "agentloop-state"),
      },
      cwd: sandbox.workspace,
    });
    expect(ran.code).toBe(0);
    expect(readFileSync(join(sandbox.workspace, "done.txt"), "utf8")).toBe("ok\n");
    expect(readFileSync(join(logs, "agentloop.exit"), "utf8").trim()).toBe("0");
    const events = readFileSync(join(logs, "agentloop.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((each) => JSON.parse(each) as { type: string; subtype?: string });
    expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success" });
    const trajectory = JSON.parse(readFileSync(join(logs, "trajectory.json"), "utf8"));
    expect(atifProblems(trajectory)).toEqual([]);
    expect(trajectory.steps[0]).toMatchObject({
      source: "user",
      message: "Create done.txt; it's the task.",
    });
    // The model Harbor named, not the environment's default.
    expect(JSON.parse(model.requests().at(-1)?.body ?? "{}").model).toBe("claude-sonnet-5-5");
  });
});

// agentloop killed with SIGKILL ends nothing itself: the session's reaper must. Named bash-*
// so that it runs again with the ps process table, the one the reaper uses on macOS.

import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESS_TABLE_VARIABLE } from "../src/tools/process-tree.js";
import { eventually, pgrep, uniqueSleep } from "./support/bash-harness.js";
import { type FakeModel, freshSandbox, runCli, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";

describe("agentloop killed with SIGKILL in yolo mode", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("leaves no process its commands started in the background", async () => {
    const sleeper = uniqueSleep();
    model.script([
      reply(toolUse("call_1", "bash", { command: `${sleeper.command} > /dev/null 2>&1 &` })),
      // The next request never ends: agentloop is still running when it is killed.
      { kind: "stall", content: [text("Still thinking")] },
    ]);
    const sandbox = freshSandbox();
    const table = process.env[PROCESS_TABLE_VARIABLE];
    const env = {
      ...sandbox.env,
      ...model.env(),
      ...(table ? { [PROCESS_TABLE_VARIABLE]: table } : {}),
    };
    let agent: ChildProcess | undefined;
    const finished = runCli(["--permission-mode", "yolo", "-p", "start a sleeper"], {
      env,
      cwd: sandbox.workspace,
      onSpawn: (child) => {
        agent = child;
      },
    });
    await eventually(() => model.requestCount() === 2, "the second request arrived");
    const [pid] = pgrep(sleeper.pattern);
    expect(pid).toBeDefined();
    agent?.kill("SIGKILL");
    expect((await finished).code).toBe(null);
    await eventually(() => pgrep(sleeper.pattern).length === 0, "the sleeper is gone");
  });
});

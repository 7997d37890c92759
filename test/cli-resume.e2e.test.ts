// Resuming with the built CLI after the run was killed outright (kill -9) in the middle of a
// tool call or of a streamed reply, and after a corrupt line: the fake server, which rejects
// invalid transcripts, must accept every resumed request.

import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";

describe("resuming a session with the CLI", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  /** Starts a run and kills it with SIGKILL once the session file holds `messages` messages. */
  async function killedRun(sandbox: Sandbox, turns: FakeTurn[], messages: number) {
    model.script(turns);
    const env = { ...sandbox.env, ...model.env() };
    const { code } = await runCli(["--permission-mode", "yolo", "start the work"], {
      env,
      cwd: sandbox.workspace,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          try {
            if (onlySession(sandbox).messages.length >= messages) {
              clearInterval(poll);
              setTimeout(() => child.kill("SIGKILL"), 150);
            }
          } catch {
            // the session file is not there yet
          }
        }, 20);
      },
    });
    expect(code).toBeNull();
  }

  async function resume(sandbox: Sandbox, answer: string) {
    model.script([reply(text(answer))]);
    const before = model.requestCount();
    const id = onlySession(sandbox).header?.id as string;
    const run = await runCli(["--resume", id, "go on"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(model.statuses().slice(before)).toEqual([200]);
    return run;
  }

  it("after kill -9 in the middle of a tool call", async () => {
    const sandbox = freshSandbox();
    await killedRun(sandbox, [reply(toolUse("k1", "bash", { command: "sleep 30" }))], 2);
    const { code, stdout } = await resume(sandbox, "Resumed after the crash.");
    expect(code).toBe(0);
    expect(stdout).toBe("Resumed after the crash.\n");
    const messages = onlySession(sandbox).messages;
    expect(messages[2]?.content).toEqual([
      expect.objectContaining({ tool_use_id: "k1", is_error: true }),
    ]);
  });

  it("after kill -9 in the middle of a streamed reply", async () => {
    const sandbox = freshSandbox();
    await killedRun(
      sandbox,
      [
        reply(toolUse("s1", "bash", { command: "echo one" })),
        { kind: "stall", content: [text("Halfway through")] },
      ],
      3,
    );
    const { code, stdout } = await resume(sandbox, "Picked up again.");
    expect(code).toBe(0);
    expect(stdout).toBe("Picked up again.\n");
  });

  it("after a corrupt line, which is reported with its number and skipped", async () => {
    const sandbox = freshSandbox();
    model.script([reply(text("first answer"))]);
    await runCli(["first"], { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace });
    const { path } = onlySession(sandbox);
    // The file ends with a newline: the corrupt line is the one after its last.
    const corruptLine = readFileSync(path, "utf8").split("\n").length;
    appendFileSync(path, "{this is not json\n");
    const { code, stderr } = await resume(sandbox, "Still fine.");
    expect(code).toBe(0);
    expect(stderr).toContain(
      `session file line ${corruptLine} skipped: the line is not valid JSON`,
    );
  });
});

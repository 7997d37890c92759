// The REPL in a real pseudo-terminal, and interrupts sent as real signals or as Ctrl-C typed
// at the terminal, against the fake Anthropic server.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  runCli,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

const bash = (id: string, command: string) => toolUse(id, "bash", { command });

describe("the REPL in a terminal", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("keeps the history across prompts and prints the session file on exit", async () => {
    model.script([
      reply(text("Noted: the colour is teal.")),
      reply(bash("r1", "echo checking"), text("")),
      reply(text("You said teal.")),
    ]);
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    await terminal.enter("remember the colour teal", /Noted: the colour is teal\./);
    await terminal.enter("which colour?", /You said teal\./);
    expect(await terminal.exit()).toBe(0);
    expect(terminal.output()).toMatch(/Session saved to .*\.jsonl/);

    const session = onlySession(sandbox);
    const prompts = session.messages.filter(
      (m) => m.role === "user" && typeof m.content === "string",
    );
    expect(prompts.map((m) => m.content)).toEqual(["remember the colour teal", "which colour?"]);
    expect(session.messages).toHaveLength(6);
    expect(model.statuses().every((status) => status === 200)).toBe(true);
  });

  it("cancels the running tool on Ctrl-C, returns to the prompt, and exits on a second Ctrl-C", async () => {
    model.script([reply(bash("slow", "sleep 30")), reply(text("Fine, I stopped."))]);
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: ["--permission-mode", "yolo"],
    });
    terminal.type("wait a while\r");
    await terminal.waitFor(/\$ sleep 30/);
    terminal.type("\x03");
    await terminal.waitFor(/interrupted[\s\S]*› /);
    await terminal.enter("what happened?", /Fine, I stopped\./);
    expect(model.statuses()).not.toContain(400);

    terminal.type("\x03");
    await new Promise((resolve) => setTimeout(resolve, 100));
    terminal.type("\x03");
    expect(await terminal.exited).toBe(130);
    const results = onlySession(sandbox).messages[2]?.content;
    expect(results).toEqual([expect.objectContaining({ tool_use_id: "slow", is_error: true })]);
  });
});

describe("asking for permission at the terminal", () => {
  it("asks before a command that may write, and passes a refusal with its reason to the model", async () => {
    const model = await startFakeModel("anthropic");
    model.script([
      reply(bash("w1", "touch first.txt")),
      reply(bash("w2", "touch second.txt")),
      reply(text("One file made, one refused.")),
    ]);
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    terminal.type("make two files\r");
    await terminal.waitFor(/Allow bash to run touch first\.txt\?[\s\S]*\[y\]es/);
    await terminal.press("y\r", /Allow bash to run touch second\.txt\?[\s\S]*\[y\]es/);
    await terminal.enter("n not that one", /One file made, one refused\./);
    expect(await terminal.exit()).toBe(0);
    await model.close();

    expect(existsSync(join(sandbox.workspace, "first.txt"))).toBe(true);
    expect(existsSync(join(sandbox.workspace, "second.txt"))).toBe(false);
    const refusal = onlySession(sandbox).messages[4]?.content as {
      content: string;
      is_error: boolean;
    }[];
    expect(refusal[0]).toMatchObject({ is_error: true });
    expect(refusal[0]?.content).toMatch(/not that one/);
  });
});

describe("interrupting a one-shot run", () => {
  it.each(["SIGINT", "SIGTERM"] as const)(
    "ends cleanly with 130 on %s and leaves a valid session",
    async (signal) => {
      const model = await startFakeModel("anthropic");
      model.script([reply(bash("long", "sleep 30"))]);
      const sandbox = freshSandbox();
      const started = Date.now();
      const run = runCli(["sleep for a while"], {
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
        onSpawn: (child) => {
          const poll = setInterval(() => {
            const session = (() => {
              try {
                return onlySession(sandbox);
              } catch {
                return undefined;
              }
            })();
            if (session && session.messages.length >= 2) {
              clearInterval(poll);
              setTimeout(() => child.kill(signal), 200);
            }
          }, 20);
        },
      });
      const { code } = await run;
      await model.close();
      expect(code).toBe(130);
      expect(Date.now() - started).toBeLessThan(10_000);
      const session = onlySession(sandbox);
      expect(session.messages.at(-1)?.content).toEqual([
        expect.objectContaining({ tool_use_id: "long", is_error: true }),
      ]);
      // After the stop, only the checkpoints part's note of how the prompt left the files.
      const loopEntries = session.entries.filter((entry) => entry.type !== "part");
      expect(loopEntries.at(-1)).toMatchObject({ type: "stop", reason: "interrupted" });
    },
  );
});

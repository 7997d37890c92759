// A model that thinks, used as a person would through the CLI against the fake Messages API
// (which signs thinking and refuses a request that drops or edits it): the REPL shows the
// thinking dim on its progress line, /model and --continue send only what each model may see.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeBlock, reply, text, thinking, toolUse } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

/** The escape sequence that starts dim text, as a regular expression. */
const DIM = "\\x1b\\[2m";

const bash = (id: string, command: string): FakeBlock => toolUse(id, "bash", { command });

describe("a thinking model through the CLI", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  const env = (sandbox: Sandbox) => ({ ...sandbox.env, ...model.env() });
  const bodies = (from: number) =>
    model
      .requests()
      .slice(from)
      .map((request) => JSON.parse(request.body));

  it("shows the thinking dim on the REPL's progress line, asked for as summarized", async () => {
    model.script([
      {
        kind: "reply",
        content: [thinking("Looking for the test script first."), text("Found it.")],
        thinkMs: 700,
      },
    ]);
    const sandbox = freshSandbox();
    const before = model.requestCount();
    const terminal = await openRepl({
      env: env(sandbox),
      cwd: sandbox.workspace,
      args: ["--model", "claude-sonnet-5-5"],
    });
    const shown = await terminal.enter("find the tests", /Found it\./);
    const dimmed = `${DIM}. thinking… \\d+\\.\\d s · Looking for the test script first\\.`;
    expect(shown).toMatch(new RegExp(dimmed));
    expect(bodies(before)[0].thinking).toEqual({ type: "adaptive", display: "summarized" });
    expect(await terminal.exit()).toBe(0);
  });

  it("after /model sends the new model none of the old one's thinking, and every request passes", async () => {
    const sandbox = freshSandbox();
    const before = model.requestCount();
    model.script([reply(bash("t1", "echo one")), reply(text("One."))]);
    const terminal = await openRepl({
      env: env(sandbox),
      cwd: sandbox.workspace,
      args: ["--model", "claude-sonnet-5-5", "--permission-mode", "yolo"],
    });
    await terminal.enter("first", /One\./);
    await terminal.enter("/model claude-opus-5", /Model claude-opus-5/);
    model.script([reply(bash("t2", "echo two")), reply(text("Two."))]);
    await terminal.enter("second", /Two\./);
    expect(await terminal.exit()).toBe(0);
    expect(model.statuses().slice(before)).toEqual([200, 200, 200, 200]);
    const [, , toOpus] = bodies(before);
    expect(toOpus.model).toBe("claude-opus-5");
    // Sonnet's reply (thinking, then the call) goes to Opus as the call alone.
    expect(toOpus.messages[1].content.map((block: { type: string }) => block.type)).toEqual([
      "tool_use",
    ]);
  });

  it("--continue of a session whose last turn was a thinking tool-use cycle is accepted", async () => {
    const sandbox = freshSandbox();
    const options = { env: env(sandbox), cwd: sandbox.workspace };
    const args = ["--model", "claude-sonnet-5-5", "--permission-mode", "yolo"];
    model.script([reply(bash("t1", "echo hi"))]);
    const first = await runCli([...args, "--max-turns", "1", "-p", "say hi"], options);
    expect(first.code).toBe(3);
    const before = model.requestCount();
    model.script([reply(text("Finished."))]);
    const resumed = await runCli([...args, "--continue", "-p", "finish up"], options);
    expect(resumed).toMatchObject({ code: 0, stdout: "Finished.\n" });
    expect(model.statuses().slice(before)).toEqual([200]);
    const [request] = bodies(before);
    expect(request.messages[1].content[0].type).toBe("thinking");
  });

  it("--continue with another model in the middle of a cycle turns thinking off for that request", async () => {
    const sandbox = freshSandbox();
    const options = { env: env(sandbox), cwd: sandbox.workspace };
    model.script([reply(bash("t1", "echo hi"))]);
    await runCli(["--model", "claude-sonnet-5-5", "--max-turns", "1", "-p", "say hi"], options);
    const before = model.requestCount();
    model.script([reply(text("Opus finished."))]);
    const resumed = await runCli(
      ["--model", "claude-opus-5", "--continue", "-p", "finish"],
      options,
    );
    expect(resumed).toMatchObject({ code: 0, stdout: "Opus finished.\n" });
    expect(bodies(before)[0].thinking).toEqual({ type: "disabled" });
  });
});

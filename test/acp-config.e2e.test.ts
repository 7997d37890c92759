// The editor's pickers and history over ACP: the model and the thinking effort as session
// config options whose switch reaches the model's next request, and `session/list` naming the
// sessions of the session files. The built CLI on stdio, the ACP SDK's client, the fake model.

import type * as acp from "@agentclientprotocol/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Editor, initialize, openTestEditor } from "./support/acp-client.js";
import {
  type FakeModel,
  freshSandbox,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text } from "./support/fake-anthropic-server.js";

type Select = Extract<acp.SessionConfigOption, { type: "select" }>;

function option(options: acp.SessionConfigOption[] | null | undefined, id: string): Select {
  const found = options?.find((each) => each.id === id);
  if (found?.type !== "select")
    throw new Error(`no select option "${id}" in ${JSON.stringify(options)}`);
  return found;
}

const values = (select: Select) =>
  select.options.flatMap((each) => ("value" in each ? [each.value] : []));

describe("agentloop acp: model picker, effort and session history", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  const open = (sandbox: Sandbox, args: string[] = []): Editor =>
    openTestEditor(sandbox, model, args);

  /** An editor on `--model name` with one new session in the sandbox's workspace. */
  async function editorWithSession(name: string) {
    const sandbox = freshSandbox();
    const editor = open(sandbox, ["--model", name]);
    await initialize(editor);
    const session = await editor.agent.request("session/new", {
      cwd: sandbox.workspace,
      mcpServers: [],
    });
    return { editor, session, sessionId: session.sessionId };
  }

  /** The JSON body of each request the fake model got from `before` on. */
  const bodiesFrom = (before: number) =>
    model
      .requests()
      .slice(before)
      .map((request) => JSON.parse(request.body) as { model: string; output_config?: unknown });

  async function prompt(editor: Editor, sessionId: string, words: string) {
    return editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: words }],
    });
  }

  it("offers the provider's models with the current one, and a switch reaches the next request", async () => {
    const { editor, session } = await editorWithSession("claude-haiku-4-5");
    const picker = option(session.configOptions, "model");
    expect(picker).toMatchObject({ category: "model", currentValue: "claude-haiku-4-5" });
    expect(values(picker)).toContain("claude-sonnet-5-5");
    expect(values(picker).every((name) => name.startsWith("claude-"))).toBe(true);
    // Claude Haiku 4.5 takes no effort level, so there is no effort to pick.
    expect(session.configOptions?.some((each) => each.id === "effort")).toBe(false);

    model.script([reply(text("first")), reply(text("second"))]);
    const before = model.requestCount();
    await prompt(editor, session.sessionId, "one");
    const switched = await editor.agent.request("session/set_config_option", {
      sessionId: session.sessionId,
      configId: "model",
      value: "claude-sonnet-5-5",
    });
    expect(option(switched.configOptions, "model").currentValue).toBe("claude-sonnet-5-5");
    // Sonnet 5.5 takes an effort level: the picker appears with the model's default.
    expect(option(switched.configOptions, "effort")).toMatchObject({
      category: "thought_level",
      currentValue: "default",
    });
    await prompt(editor, session.sessionId, "two");
    expect(bodiesFrom(before).map((body) => body.model)).toEqual([
      "claude-haiku-4-5",
      "claude-sonnet-5-5",
    ]);
    expect(await editor.close()).toBe(0);
  });

  it("switches the effort, which the next request asks for, and refuses a value it does not offer", async () => {
    const { editor, sessionId } = await editorWithSession("claude-sonnet-5-5");
    const answer = await editor.agent.request("session/set_config_option", {
      sessionId,
      configId: "effort",
      value: "low",
    });
    expect(option(answer.configOptions, "effort").currentValue).toBe("low");
    model.script([reply(text("done"))]);
    const before = model.requestCount();
    await prompt(editor, sessionId, "go");
    expect(bodiesFrom(before)[0]?.output_config).toEqual({ effort: "low" });

    await expect(
      editor.agent.request("session/set_config_option", {
        sessionId,
        configId: "effort",
        value: "huge",
      }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      editor.agent.request("session/set_config_option", {
        sessionId,
        configId: "colour",
        value: "x",
      }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(await editor.close()).toBe(0);
  });

  it("answers the older session/set_model too, with the model named provider/model", async () => {
    const { editor, sessionId } = await editorWithSession("claude-haiku-4-5");
    await editor.agent.request(
      "session/set_model" as "session/set_mode",
      {
        sessionId,
        // As a harness names it: the session's provider, then the model.
        modelId: "anthropic/claude-opus-5",
      } as never,
    );
    model.script([reply(text("ok"))]);
    const before = model.requestCount();
    await prompt(editor, sessionId, "hi");
    expect(bodiesFrom(before)[0]?.model).toBe("claude-opus-5");
    expect(await editor.close()).toBe(0);
  });

  it("session/list names an earlier session with its cwd, title and time, filtered by cwd and paged", async () => {
    const sandbox = freshSandbox();
    const first = open(sandbox);
    const init = await initialize(first);
    expect(init.agentCapabilities?.sessionCapabilities?.list).toEqual({});
    const { sessionId } = await first.agent.request("session/new", {
      cwd: sandbox.workspace,
      mcpServers: [],
    });
    model.script([reply(text("Hello."))]);
    await prompt(first, sessionId, "greet the reader\nwith a second line");
    expect(await first.close()).toBe(0);

    const second = open(sandbox);
    await initialize(second);
    const listed = await second.agent.request("session/list", { cwd: sandbox.workspace });
    expect(listed.sessions).toHaveLength(1);
    expect(listed.sessions[0]).toMatchObject({
      sessionId,
      cwd: sandbox.workspace,
      title: "greet the reader",
    });
    expect(Date.parse(listed.sessions[0]?.updatedAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
    expect(listed.nextCursor ?? null).toBeNull();
    const elsewhere = await second.agent.request("session/list", { cwd: sandbox.home });
    expect(elsewhere.sessions).toEqual([]);
    const everywhere = await second.agent.request("session/list", {});
    expect(everywhere.sessions.map((each) => each.sessionId)).toContain(sessionId);
    await expect(
      second.agent.request("session/list", { cursor: "not-ours" }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(await second.close()).toBe(0);
  });
});

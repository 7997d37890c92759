// `agentloop acp` driven as an editor drives it: the built CLI as a child process, the ACP SDK's
// client side on its stdio pipes, the fake Messages API as the model, real bash and real files.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chosen,
  chunkText,
  type Editor,
  initialize,
  openTestEditor,
} from "./support/acp-client.js";
import {
  type FakeModel,
  freshSandbox,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeBlock, reply, text, thinking, toolUse } from "./support/fake-anthropic-server.js";
import { TEST_SERVER } from "./support/mcp-servers.js";
import { processesIn } from "./support/processes.js";

const bash = (id: string, command: string): FakeBlock => toolUse(id, "bash", { command });

/** Every line on stdout is one JSON-RPC 2.0 message. */
function expectOnlyJsonRpc(editor: Editor) {
  for (const line of editor.stdoutLines())
    expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
}

/** The call `id` was announced pending, then completed showing `output`; its two updates. */
function expectAnnouncedThenCompleted(
  updates: readonly acp.SessionUpdate[],
  id: string,
  output: string,
): ToolUpdate[] {
  const call = toolUpdates(updates, id);
  expect(call.map((update) => [update.sessionUpdate, update.status])).toEqual([
    ["tool_call", "pending"],
    ["tool_call_update", "completed"],
  ]);
  expect(JSON.stringify(call[1]?.content)).toContain(output);
  return call;
}

/**
 * The `sleep` processes working in `dir`: what a command started. The session's shell waiting
 * for its next command (src/tools/warm-shell.ts) works there too, and is not one of them.
 */
function sleepsIn(dir: string): number[] {
  return processesIn(dir).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep\0");
    } catch {
      return false;
    }
  });
}

type ToolUpdate = Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>;

function toolUpdates(updates: readonly acp.SessionUpdate[], id: string): ToolUpdate[] {
  return updates.filter(
    (update): update is ToolUpdate =>
      (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") &&
      update.toolCallId === id,
  );
}

describe("agentloop acp, driven by an ACP client", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  const open = (sandbox: Sandbox, args: string[] = []): Editor =>
    openTestEditor(sandbox, model, args);

  async function newSession(editor: Editor, sandbox: Sandbox) {
    await initialize(editor);
    return editor.agent.request("session/new", { cwd: sandbox.workspace, mcpServers: [] });
  }

  it("streams a bash round trip: the thinking as thought chunks, the call pending then completed with its output", async () => {
    const sandbox = freshSandbox();
    const editor = open(sandbox, ["--model", "claude-sonnet-5-5"]);
    const init = await initialize(editor);
    expect(init).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true },
      },
    });
    const session = await editor.agent.request("session/new", {
      cwd: sandbox.workspace,
      mcpServers: [],
    });
    expect(session.modes?.currentModeId).toBe("ask");
    expect(session.modes?.availableModes.map((mode) => mode.id)).toEqual([
      "ask",
      "auto",
      "read-only",
      "yolo",
      "plan",
    ]);

    model.script([
      reply(thinking("Checking the greeting first."), bash("c1", "echo hello-from-acp")),
      reply(text("It said hello.")),
    ]);
    const answer = await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "say hello" }],
    });
    expect(answer.stopReason).toBe("end_turn");

    const updates = editor.updates(session.sessionId);
    expect(chunkText(updates, "agent_thought_chunk")).toContain("Checking the greeting first.");
    expect(chunkText(updates, "agent_message_chunk")).toBe("It said hello.");
    const call = expectAnnouncedThenCompleted(updates, "c1", "hello-from-acp");
    expect(call[0]).toMatchObject({ kind: "execute", title: "bash: echo hello-from-acp" });
    // The call comes before the answer that follows it.
    const finished = updates.indexOf(call[1] as acp.SessionUpdate);
    const answerAt = updates.findIndex((update) => update.sessionUpdate === "agent_message_chunk");
    expect(finished).toBeLessThan(answerAt);
    expect(editor.permissionRequests).toEqual([]);
    expect(await editor.close()).toBe(0);
    expectOnlyJsonRpc(editor);
  });

  it("asks before an edit, then shows it as a diff of the file and changes it", async () => {
    const sandbox = freshSandbox();
    const file = join(sandbox.workspace, "colour.txt");
    writeFileSync(file, "colour = red\n");
    const editor = open(sandbox);
    const { sessionId } = await newSession(editor, sandbox);
    model.script([
      reply(toolUse("r1", "read", { file_path: "colour.txt" })),
      reply(
        toolUse("e1", "edit", { file_path: "colour.txt", old_string: "red", new_string: "blue" }),
      ),
      reply(text("Now blue.")),
    ]);
    const answer = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "make it blue" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(readFileSync(file, "utf8")).toBe("colour = blue\n");

    expect(editor.permissionRequests).toHaveLength(1);
    const asked = editor.permissionRequests[0] as acp.RequestPermissionRequest;
    expect(asked.toolCall.toolCallId).toBe("e1");
    expect(asked.options.map((option) => option.kind)).toEqual([
      "allow_once",
      "allow_always",
      "reject_once",
      "reject_always",
    ]);
    const edit = toolUpdates(editor.updates(sessionId), "e1");
    expect(edit.map((update) => update.status)).toEqual(["pending", "in_progress", "completed"]);
    expect(edit[0]).toMatchObject({ kind: "edit", locations: [{ path: file }] });
    expect(edit[2]?.content).toEqual([
      { type: "diff", path: file, oldText: "colour = red\n", newText: "colour = blue\n" },
    ]);
    expect(toolUpdates(editor.updates(sessionId), "r1")[0]).toMatchObject({ kind: "read" });
  });

  it("in ask mode a write the editor rejects never runs", async () => {
    const sandbox = freshSandbox();
    const editor = open(sandbox);
    const { sessionId } = await newSession(editor, sandbox);
    editor.answerPermissions(async () => chosen("reject_once"));
    model.script([
      reply(toolUse("w1", "write", { file_path: "notes.txt", content: "hello\n" })),
      reply(text("I left it alone.")),
    ]);
    const answer = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write notes" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(editor.permissionRequests.map((request) => request.toolCall.toolCallId)).toEqual(["w1"]);
    expect(existsSync(join(sandbox.workspace, "notes.txt"))).toBe(false);
    const write = toolUpdates(editor.updates(sessionId), "w1");
    expect(write.map((update) => update.status)).toEqual(["pending", "failed"]);
  });

  it("session/cancel during `sleep 30` returns cancelled within two seconds, with nothing it started left running", async () => {
    const sandbox = freshSandbox();
    const editor = open(sandbox);
    const { sessionId } = await newSession(editor, sandbox);
    model.script([reply(bash("s1", "sleep 30 & sleep 29; wait")), reply(text("unreachable"))]);
    const prompt = editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "wait" }],
    });
    await expect.poll(() => sleepsIn(sandbox.workspace).length, { timeout: 10_000 }).toBe(2);
    const started = performance.now();
    await editor.agent.notify("session/cancel", { sessionId });
    const answer = await prompt;
    expect(answer.stopReason).toBe("cancelled");
    expect(performance.now() - started).toBeLessThan(2000);
    expect(sleepsIn(sandbox.workspace)).toEqual([]);
  });

  it("a cancel while the editor is asked answers the question cancelled and ends the turn", async () => {
    const sandbox = freshSandbox();
    const editor = open(sandbox);
    const { sessionId } = await newSession(editor, sandbox);
    let askedSignal: AbortSignal | undefined;
    editor.answerPermissions(
      (_request, signal) =>
        new Promise((resolve) => {
          askedSignal = signal;
          signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }));
        }),
    );
    model.script([reply(toolUse("w2", "write", { file_path: "later.txt", content: "x\n" }))]);
    const prompt = editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write" }],
    });
    await expect.poll(() => editor.permissionRequests.length).toBe(1);
    await editor.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    await expect.poll(() => askedSignal?.aborted).toBe(true);
    expect(existsSync(join(sandbox.workspace, "later.txt"))).toBe(false);
  });

  it("session/load in a new process replays the first prompt and its answer, and goes on from there", async () => {
    const sandbox = freshSandbox();
    const first = open(sandbox);
    const { sessionId } = await newSession(first, sandbox);
    model.script([reply(bash("l1", "echo remembered")), reply(text("Noted: seven."))]);
    await first.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "remember the number seven" }],
    });
    expect(await first.close()).toBe(0);

    const second = open(sandbox);
    await initialize(second);
    const loaded = await second.agent.request("session/load", {
      sessionId,
      cwd: sandbox.workspace,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("ask");
    const replayed = second.updates(sessionId);
    expect(chunkText(replayed, "user_message_chunk")).toBe("remember the number seven");
    expect(chunkText(replayed, "agent_message_chunk")).toBe("Noted: seven.");
    expectAnnouncedThenCompleted(replayed, "l1", "remembered");

    model.script([reply(text("It was seven."))]);
    const before = model.requestCount();
    await second.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "which number?" }],
    });
    expect(model.requests()[before]?.body).toContain("remember the number seven");
    expectOnlyJsonRpc(second);
  });

  it("switches the permission mode with session/set_mode, and refuses a mode it does not have", async () => {
    const sandbox = freshSandbox();
    const editor = open(sandbox);
    const { sessionId } = await newSession(editor, sandbox);
    await editor.agent.request("session/set_mode", { sessionId, modeId: "yolo" });
    model.script([
      reply(toolUse("w3", "write", { file_path: "free.txt", content: "ok\n" })),
      reply(text("Done.")),
    ]);
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write" }],
    });
    expect(editor.permissionRequests).toEqual([]);
    expect(readFileSync(join(sandbox.workspace, "free.txt"), "utf8")).toBe("ok\n");
    await expect(
      editor.agent.request("session/set_mode", { sessionId, modeId: "reckless" }),
    ).rejects.toThrow(/Unknown permission mode "reckless"/);
  });

  it("in plan mode shows the plan for approval, and tells the editor of the mode the approval chose", async () => {
    const sandbox = freshSandbox();
    const editor = open(sandbox);
    const { sessionId } = await newSession(editor, sandbox);
    await editor.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    editor.answerPermissions(async () => chosen("auto"));
    // The plan file's path is in plan mode's note beside the prompt.
    let planFile = "";
    model.script([reply(toolUse("x1", "exit_plan_mode", {})), reply(text("Planned."))], {
      intercept: ({ lastUserText }) => {
        const named = /your plan, (\S+), which/.exec(lastUserText)?.[1];
        if (!named) return undefined;
        planFile = named;
        return reply(toolUse("p1", "write", { file_path: named, content: "1. Paint it blue.\n" }));
      },
    });
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "plan" }],
    });
    expect(planFile).not.toBe("");
    const asked = editor.permissionRequests.at(-1) as acp.RequestPermissionRequest;
    expect(asked.toolCall).toMatchObject({
      toolCallId: "x1",
      content: [{ type: "content", content: { type: "text", text: "1. Paint it blue.\n" } }],
    });
    expect(asked.options.map((option) => option.optionId)).toEqual(["ask", "auto", "keep"]);
    expect(editor.updates(sessionId)).toContainEqual({
      sessionUpdate: "current_mode_update",
      currentModeId: "auto",
    });
  });

  it("gives the model the editor's MCP servers, shows todo_write as a plan and offers the skills as commands", async () => {
    const sandbox = freshSandbox();
    const skill = join(sandbox.workspace, ".agentloop", "skills", "review");
    mkdirSync(skill, { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      "---\nname: review\ndescription: Review a change for bugs\n---\nReview $ARGUMENTS.\n",
    );
    const editor = open(sandbox, ["--tools", "bash,todo_write"]);
    await initialize(editor);
    const { sessionId } = await editor.agent.request("session/new", {
      cwd: sandbox.workspace,
      mcpServers: [{ name: "test", command: process.execPath, args: [TEST_SERVER], env: [] }],
    });
    const todos = [
      { content: "Read the code", status: "completed", activeForm: "Reading the code" },
      { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
    ];
    model.script([reply(toolUse("t1", "todo_write", { todos })), reply(text("Planned."))]);
    const before = model.requestCount();
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "plan it" }],
    });
    const tools = JSON.parse(model.requests()[before]?.body ?? "{}").tools.map(
      (tool: { name: string }) => tool.name,
    );
    expect(tools).toContain("mcp__test__echo");
    const updates = editor.updates(sessionId);
    expect(updates).toContainEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "Read the code", priority: "medium", status: "completed" },
        { content: "Fix the bug", priority: "medium", status: "in_progress" },
      ],
    });
    expect(toolUpdates(updates, "t1")[0]).toMatchObject({ kind: "think" });
    expect(updates).toContainEqual({
      sessionUpdate: "available_commands_update",
      availableCommands: [{ name: "review", description: "Review a change for bugs" }],
    });
  });

  it("takes a prompt of text, a linked file, an embedded file and an image", async () => {
    const sandbox = freshSandbox();
    const editor = open(sandbox);
    const { sessionId } = await newSession(editor, sandbox);
    model.script([reply(text("Seen."))]);
    const before = model.requestCount();
    const pixel =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "look at these" },
        { type: "resource_link", uri: `file://${sandbox.workspace}/main.ts`, name: "main.ts" },
        {
          type: "resource",
          resource: { uri: `file://${sandbox.workspace}/unsaved.ts`, text: "let draft = 1;" },
        },
        { type: "image", mimeType: "image/png", data: pixel },
      ],
    });
    const sent = model.requests()[before]?.body ?? "";
    expect(sent).toContain("look at these");
    expect(sent).toContain(`The user points to ${sandbox.workspace}/main.ts.`);
    expect(sent).toContain(`<file path=\\"${sandbox.workspace}/unsaved.ts\\">\\nlet draft = 1;`);
    const saved = /saved as ([^:]+\.png)/.exec(sent)?.[1] as string;
    expect(readFileSync(saved).toString("base64")).toBe(pixel);
    // Beside the session, in its own folder.
    expect(
      saved.startsWith(join(sandbox.home, ".local", "state", "agentloop", "sessions", sessionId)),
    ).toBe(true);
  });

  it("ends a turn with ACP's stop reasons: max_turn_requests at --max-turns, refusal, and an error as a failed prompt", async () => {
    const sandbox = freshSandbox();
    const editor = open(sandbox, ["--max-turns", "1"]);
    const { sessionId } = await newSession(editor, sandbox);
    const prompt = () =>
      editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    model.script([reply(bash("m1", "echo one"))]);
    expect((await prompt()).stopReason).toBe("max_turn_requests");
    model.script([{ kind: "reply", content: [text("No.")], stopReason: "refusal" }]);
    expect((await prompt()).stopReason).toBe("refusal");
    model.script([
      { kind: "http_error", status: 400, errorType: "invalid_request_error", message: "bad" },
    ]);
    await expect(prompt()).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("bad"),
    });
  });

  it("answers bad input with JSON-RPC errors: 40 malformed lines, then initialize is still answered", async () => {
    const sandbox = freshSandbox();
    const editor = open(sandbox);
    await expect(
      editor.agent.request("session/new", { cwd: sandbox.workspace, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32600 });
    for (let line = 0; line < 40; line++) editor.child.stdin?.write(`not json ${line} {\n`);
    const init = await initialize(editor);
    expect(init.protocolVersion).toBe(1);
    const parseErrors = editor
      .stdoutLines()
      .filter((line) => JSON.parse(line).error?.code === -32700);
    expect(parseErrors).toHaveLength(40);
    await expect(
      editor.agent.request("session/prompt", {
        sessionId: "no-such-session",
        prompt: [{ type: "text", text: "hi" }],
      }),
    ).rejects.toMatchObject({ code: -32002 });
    await expect(editor.agent.request("no/such_method", {})).rejects.toMatchObject({
      code: -32601,
    });
    expect(await editor.close()).toBe(0);
    expectOnlyJsonRpc(editor);
  });
});

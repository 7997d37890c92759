// Issue 18 through the built CLI: an OpenAI-compatible server gives two tool calls of one reply
// the same id. Both must run, the session file must hold them under ids of their own (with the
// repair recorded), and --resume must send a request the strict fake server accepts. A session
// recorded before the fix, with a nameless call in it, must resume too.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message, ToolUseBlock } from "../src/core/messages.js";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import type { FakeTurn } from "./support/fake-openai-server.js";
import { bash, text } from "./support/scripted-provider.js";

interface ChatMessage {
  role: string;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string } }[];
}

const callsIn = (messages: Message[]): ToolUseBlock[] =>
  messages.flatMap((message) =>
    message.role === "assistant"
      ? message.content.filter((block): block is ToolUseBlock => block.type === "tool_use")
      : [],
  );

const resultIdsIn = (message: Message | undefined): string[] =>
  message?.role === "user" && typeof message.content !== "string"
    ? message.content.flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : []))
    : [];

describe("the CLI against an OpenAI-compatible server that repeats tool-call ids", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("openai");
  });
  afterAll(() => model.close());

  /** The OpenAI fake takes its own turns (with quirks); the harness types them as Anthropic's. */
  const script = (turns: FakeTurn[]) => model.script(turns as never);

  const run = (sandbox: Sandbox, args: string[]) =>
    runCli([...model.flags, "--permission-mode", "yolo", ...args], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });

  /** Runs the two calls with one id, then the model's answer; returns the session. */
  async function sameIdRun(sandbox: Sandbox) {
    script([
      {
        kind: "reply",
        content: [
          text("Writing both."),
          bash("call_dup", "echo one > one.txt"),
          bash("call_dup", "echo two > two.txt && cat two.txt"),
        ],
        quirks: ["same_id_twice"],
      },
      { kind: "reply", content: [text("Both files are written.")] },
    ]);
    const before = model.requestCount();
    const { code, stdout, stderr } = await run(sandbox, ["write one.txt and two.txt"]);
    expect({ code, stdout }).toEqual({ code: 0, stdout: "Both files are written.\n" });
    expect(stderr).toContain("$ echo two > two.txt && cat two.txt");
    expect(stderr).not.toContain("Unknown tool");
    expect(model.statuses().slice(before)).toEqual([200, 200]);
    return onlySession(sandbox);
  }

  async function resume(sandbox: Sandbox, answer: string) {
    script([{ kind: "reply", content: [text(answer)] }]);
    const before = model.requestCount();
    const id = onlySession(sandbox).header?.id as string;
    const result = await run(sandbox, ["--resume", id, "go on"]);
    expect(model.statuses().slice(before)).toEqual([200]);
    const body = JSON.parse(model.requests().at(-1)?.body ?? "{}") as { messages: ChatMessage[] };
    return { ...result, messages: body.messages };
  }

  it("runs both calls, records them under ids of their own with the repair, and resumes", async () => {
    const sandbox = freshSandbox();
    const session = await sameIdRun(sandbox);
    expect(readFileSync(join(sandbox.workspace, "one.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(join(sandbox.workspace, "two.txt"), "utf8")).toBe("two\n");

    expect(session.problems).toEqual([]);
    expect(session.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(callsIn(session.messages).map(({ id, name, input }) => ({ id, name, input }))).toEqual([
      { id: "call_dup", name: "bash", input: { command: "echo one > one.txt" } },
      { id: "call_dup_2", name: "bash", input: { command: "echo two > two.txt && cat two.txt" } },
    ]);
    expect(resultIdsIn(session.messages[2])).toEqual(["call_dup", "call_dup_2"]);
    expect(session.entries.filter((entry) => entry.type === "repair")).toEqual([
      expect.objectContaining({
        description:
          "Renamed the repeated tool call id call_dup in the model's reply to call_dup_2.",
      }),
    ]);

    // The request after the calls carried both ids, each answered by its own tool message.
    const second = JSON.parse(model.requests().at(-1)?.body ?? "{}") as { messages: ChatMessage[] };
    expect(second.messages.flatMap((m) => m.tool_calls ?? []).map((call) => call.id)).toEqual([
      "call_dup",
      "call_dup_2",
    ]);
    expect(second.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual([
      "call_dup",
      "call_dup_2",
    ]);

    const resumed = await resume(sandbox, "Resumed.");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("Resumed.\n");
    expect(resumed.messages.flatMap((m) => m.tool_calls ?? []).map((call) => call.id)).toEqual([
      "call_dup",
      "call_dup_2",
    ]);
    const after = onlySession(sandbox);
    expect(after.problems).toEqual([]);
    // The history was valid as recorded: resuming repaired nothing more.
    expect(after.entries.filter((entry) => entry.type === "repair")).toHaveLength(1);
  });

  it("resumes a session recorded before the fix, whose second call has no name", async () => {
    const sandbox = freshSandbox();
    const { path } = await sameIdRun(sandbox);
    // Rewrite the session as the bug recorded it: the second call nameless, with a made-up id,
    // answered with an "Unknown tool" error.
    const broken = readFileSync(path, "utf8")
      .replace('"id":"call_dup_2","name":"bash"', '"id":"call_0123456789ab_1","name":""')
      .replace('"tool_use_id":"call_dup_2"', '"tool_use_id":"call_0123456789ab_1"');
    expect(broken).toContain('"name":""');
    writeFileSync(path, broken);
    expect(existsSync(path)).toBe(true);

    const resumed = await resume(sandbox, "Picked up again.");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("Picked up again.\n");
    expect(resumed.messages.flatMap((m) => m.tool_calls ?? [])).toEqual([
      expect.objectContaining({
        id: "call_dup",
        function: expect.objectContaining({ name: "bash" }),
      }),
    ]);
    expect(onlySession(sandbox).entries.filter((entry) => entry.type === "repair")).toEqual([
      expect.objectContaining({ description: expect.stringMatching(/^Renamed the repeated/) }),
      expect.objectContaining({
        description: "Dropped tool call call_0123456789ab_1, which has no name, and its result.",
      }),
    ]);
  });
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LoopEvent, LoopStop } from "../src/core/events.js";
import type { ToolResultBlock, UserBlock } from "../src/core/messages.js";
import type { Notice, NoticeSource } from "../src/core/notices.js";
import { agentLoop, createLoopState, type LoopState } from "../src/loop.js";
import { createBashTool } from "../src/tools/bash.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { bash, type Script, scriptedProvider, text } from "./support/scripted-provider.js";

const workdir = () => mkdtempSync(join(tmpdir(), "agentloop-loop-"));

async function run(
  script: Script[],
  options: { maxTurns?: number; signal?: AbortSignal; notices?: NoticeSource } = {},
) {
  const provider = scriptedProvider(script);
  const toolbox = createToolbox([createBashTool({ cwd: workdir() })]);
  const state: LoopState = createLoopState([{ role: "user", content: "do the task" }]);
  const events: LoopEvent[] = [];
  const loop = agentLoop(state, {
    provider,
    toolbox,
    system: "test",
    maxTurns: options.maxTurns ?? 200,
    signal: options.signal,
    notices: options.notices,
  });
  let stop: LoopStop | undefined;
  while (true) {
    const step = await loop.next();
    if (step.done) {
      stop = step.value;
      break;
    }
    events.push(step.value);
  }
  return { state, events, stop, requests: provider.requests };
}

function resultsOf(state: LoopState, index: number): ToolResultBlock[] {
  const message = state.messages[index];
  if (!message || typeof message.content === "string") throw new Error("no tool results here");
  return (message.content as UserBlock[]).filter(
    (b): b is ToolResultBlock => b.type === "tool_result",
  );
}

describe("the agent loop", () => {
  it("sends each notice once, as text after the turn's tool results, and announces it", async () => {
    const task = {
      task_id: "bg_1",
      command: "make",
      status: "completed" as const,
      exit_code: 0,
      output_file: "/f",
    };
    const pending: Notice[] = [
      {
        text: "<task_notification>bg_1</task_notification>",
        event: { type: "task_started", task },
      },
    ];
    const { state, events } = await run(
      [
        { content: [bash("toolu_1", "echo one")] },
        { content: [bash("toolu_2", "echo two")] },
        { content: [text("Done.")] },
      ],
      { notices: () => pending.splice(0) },
    );
    const blocks = (index: number) => state.messages[index]?.content as UserBlock[];
    expect(blocks(2).map((block) => block.type)).toEqual(["tool_result", "text"]);
    expect(blocks(2)[1]).toEqual({
      type: "text",
      text: "<task_notification>bg_1</task_notification>",
    });
    expect(blocks(4).map((block) => block.type)).toEqual(["tool_result"]);
    const types = events.map((event) => event.type);
    expect(types.indexOf("task_started")).toBe(types.indexOf("tool_results") + 1);
    expect(types.filter((type) => type === "task_started")).toHaveLength(1);
  });

  it("ends when the model answers with text only", async () => {
    const { state, stop, requests } = await run([{ content: [text("Hello!")] }]);
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "Hello!" });
    expect(requests).toHaveLength(1);
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("runs bash and sends the output back with the tool_use_id", async () => {
    const { state, requests } = await run([
      { content: [text("Let me look."), bash("toolu_1", "echo hello from bash")] },
      { content: [text("It printed hello.")] },
    ]);
    expect(requests).toHaveLength(2);
    const [result] = resultsOf(state, 2);
    expect(result).toMatchObject({ tool_use_id: "toolu_1", is_error: false });
    expect(result?.content).toContain("hello from bash");
    expect(requests[1]?.at(-1)).toEqual(state.messages[2]);
  });

  it("lets the model see a failing command's stderr and exit code, and react", async () => {
    const { state, stop } = await run([
      { content: [bash("a", "cat no-such-file")] },
      (request) => {
        const last = request.messages.at(-1)?.content as ToolResultBlock[];
        const sawError = last[0]?.is_error && /No such file/.test(last[0].content);
        return { content: [text(sawError ? "The file is missing." : "I saw nothing")] };
      },
    ]);
    const [result] = resultsOf(state, 2);
    expect(result?.content).toMatch(/exit code 1/);
    expect(stop?.finalText).toBe("The file is missing.");
  });

  it("answers several tool calls in one reply, in order, in one message", async () => {
    const { state } = await run([
      {
        content: [bash("one", "echo 1"), bash("two", "sleep 0.2; echo 2"), bash("three", "echo 3")],
      },
      { content: [text("done")] },
    ]);
    const results = resultsOf(state, 2);
    expect(results.map((r) => r.tool_use_id)).toEqual(["one", "two", "three"]);
    expect(results.map((r) => r.content.split("\n")[0])).toEqual(["1", "2", "3"]);
    expect(state.messages).toHaveLength(4);
  });

  it("runs tools even when the provider says end_turn beside a tool call", async () => {
    const { state, requests } = await run([
      { content: [bash("x", "echo ran")], stopReason: "end_turn" },
      { content: [text("ok")] },
    ]);
    expect(requests).toHaveLength(2);
    expect(resultsOf(state, 2)[0]?.content).toContain("ran");
  });

  it("stops at --max-turns with its own reason", async () => {
    const forever: Script = { content: [bash("again", "true")] };
    const { stop, requests } = await run([forever, forever, forever, forever], { maxTurns: 3 });
    expect(stop?.reason).toBe("max_turns");
    expect(requests).toHaveLength(3);
  });

  it("emits the events every consumer renders, in order", async () => {
    const { events } = await run([
      { content: [text("hi"), bash("t", "echo x")] },
      { content: [text("bye")] },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      "turn_start",
      "text_delta",
      "assistant_message",
      "tool_start",
      "tool_end",
      "tool_results",
      "turn_end",
      "turn_start",
      "text_delta",
      "assistant_message",
      "stop",
    ]);
  });
});

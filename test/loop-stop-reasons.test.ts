import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LoopEvent, LoopStop } from "../src/core/events.js";
import type { ToolResultBlock } from "../src/core/messages.js";
import { agentLoop, createLoopState, type LoopState } from "../src/loop.js";
import { createBashTool } from "../src/tools/bash.js";
import type { Tool } from "../src/tools/tool.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { bash, type Script, scriptedProvider, text } from "./support/scripted-provider.js";

interface RunOptions {
  tools?: Tool[];
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
}

async function run(script: Script[], options: RunOptions = {}) {
  const cwd = mkdtempSync(join(tmpdir(), "agentloop-stop-"));
  const provider = scriptedProvider(script);
  const toolbox = createToolbox(options.tools ?? [createBashTool({ cwd })]);
  const state: LoopState = createLoopState([{ role: "user", content: "go" }]);
  const loop = agentLoop(state, {
    provider,
    toolbox,
    system: "s",
    maxTurns: 50,
    signal: options.signal,
  });
  let stop: LoopStop | undefined;
  for (;;) {
    const step = await loop.next();
    if (step.done) {
      stop = step.value;
      break;
    }
    options.onEvent?.(step.value);
  }
  return { state, stop: stop as LoopStop, requests: provider.requests, cwd };
}

const resultsIn = (state: LoopState, index: number) =>
  state.messages[index]?.content as ToolResultBlock[];

describe("stop reasons", () => {
  it("continues a text answer cut off by max_tokens and joins the parts", async () => {
    const announced: LoopEvent[] = [];
    const { stop, requests, state } = await run(
      [
        { content: [text("The answer is ")], stopReason: "max_tokens" },
        { content: [text("forty-two.")] },
      ],
      { onEvent: (event) => event.type === "continuation" && announced.push(event) },
    );
    expect(announced).toEqual([{ type: "continuation", turn: 1, message: state.messages[2] }]);
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "The answer is forty-two." });
    expect(requests[1]?.at(-1)).toMatchObject({ role: "user" });
    expect(JSON.stringify(requests[1]?.at(-1))).toMatch(/cut off by the output token limit/);
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("reports an answer as incomplete when it keeps being cut off", async () => {
    const cut: Script = { content: [text("more ")], stopReason: "max_tokens" };
    const { stop, requests } = await run([cut, cut, cut, cut, cut]);
    expect(stop.reason).toBe("max_tokens");
    expect(stop.detail).toMatch(/incomplete/);
    expect(requests).toHaveLength(4);
  });

  it("answers a tool_use cut off by max_tokens instead of running it", async () => {
    const { state, cwd } = await run([
      {
        content: [bash("whole", "echo complete"), bash("cut", `touch ${"half-written"}`)],
        stopReason: "max_tokens",
      },
      { content: [text("I will write it in smaller steps.")] },
    ]);
    const [whole, cut] = resultsIn(state, 2);
    expect(whole?.content).toContain("complete");
    expect(cut).toMatchObject({ tool_use_id: "cut", is_error: true });
    expect(cut?.content).toMatch(/cut off by the output token limit, so it was not run/);
    const { existsSync } = await import("node:fs");
    expect(existsSync(join(cwd, "half-written"))).toBe(false);
  });

  it("sends the conversation back after pause_turn so the model can go on", async () => {
    const { stop, requests } = await run([
      { content: [text("Searching…")], stopReason: "pause_turn" },
      { content: [text("Found it.")] },
    ]);
    expect(stop.reason).toBe("end_turn");
    expect(requests[1]?.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("stops with a clear reason on refusal", async () => {
    const { stop } = await run([
      { content: [text("I can't help with that.")], stopReason: "refusal" },
    ]);
    expect(stop).toMatchObject({ reason: "refusal" });
    expect(stop.detail).toMatch(/declined/);
  });

  it("stops safely on a stop reason it does not know", async () => {
    const { stop } = await run([{ content: [text("?")], stopReason: "unknown" }]);
    expect(stop.reason).toBe("unknown_stop_reason");
  });

  it("turns a provider failure into an error stop that keeps the history valid", async () => {
    const { stop, state } = await run([new Error("overloaded") as never].map((e) => () => e));
    expect(stop).toMatchObject({ reason: "error", detail: "overloaded" });
    expect(state.messages).toHaveLength(1);
  });
});

describe("bad tool calls are observations", () => {
  it.each([
    [
      "an unknown tool",
      { type: "tool_use", id: "u", name: "python", input: { code: "1" } },
      /Unknown tool "python"/,
    ],
    [
      "input that is not an object",
      { type: "tool_use", id: "u", name: "bash", input: "ls" },
      /expected a JSON object, got the string "ls"/,
    ],
    [
      "a missing required field",
      { type: "tool_use", id: "u", name: "bash", input: { cmd: "ls" } },
      /required field "command" is missing/,
    ],
    [
      "a field of the wrong type",
      { type: "tool_use", id: "u", name: "bash", input: { command: ["ls"] } },
      /"command" must be a string, got an array/,
    ],
  ] as const)("%s becomes an error result and the loop goes on", async (_name, call, message) => {
    const { state, stop } = await run([{ content: [call] }, { content: [text("fixed")] }]);
    const [result] = resultsIn(state, 2);
    expect(result).toMatchObject({ tool_use_id: "u", is_error: true });
    expect(result?.content).toMatch(message);
    expect(stop.reason).toBe("end_turn");
  });
});

describe("interrupts", () => {
  it("kills the running tool and answers every pending call as interrupted", async () => {
    const controller = new AbortController();
    const { state, stop } = await run(
      [{ content: [bash("slow", "sleep 30"), bash("next", "echo never")] }],
      {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "tool_start") setTimeout(() => controller.abort(), 100);
        },
      },
    );
    expect(stop.reason).toBe("interrupted");
    const results = resultsIn(state, 2);
    expect(results.map((r) => r.tool_use_id)).toEqual(["slow", "next"]);
    expect(results.every((r) => r.is_error)).toBe(true);
    expect(results[1]?.content).toMatch(/Interrupted by the user/);
  });
});

describe("limits", () => {
  it("warns the model about identical calls, then stops with its own reason", async () => {
    const same: Script = { content: [bash("again", "echo same")] };
    const { state, stop, requests } = await run([same, same, same, same, same, same, same]);
    expect(stop.reason).toBe("repeated_call");
    expect(requests).toHaveLength(5);
    expect(resultsIn(state, 2)[0]?.content).not.toMatch(/same call/);
    expect(resultsIn(state, 6)[0]?.content).toMatch(/same call 3 times in a row/);
  });
});

describe("parallel tool calls", () => {
  function sleeper(name: string, readOnly: boolean, log: string[]): Tool {
    return {
      name,
      description: name,
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      isReadOnly: () => readOnly,
      async run(input) {
        log.push(`start ${input.id}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        log.push(`end ${input.id}`);
        return { content: String(input.id), isError: false };
      },
    };
  }
  const call = (name: string, id: string) => ({
    type: "tool_use" as const,
    id,
    name,
    input: { id },
  });

  it("runs read-only calls together and others alone, returning results in order", async () => {
    const log: string[] = [];
    const tools = [sleeper("read", true, log), sleeper("write", false, log)];
    const { state } = await run(
      [
        {
          content: [
            call("read", "r1"),
            call("read", "r2"),
            call("write", "w1"),
            call("read", "r3"),
          ],
        },
        { content: [text("ok")] },
      ],
      { tools },
    );
    expect(log).toEqual([
      "start r1",
      "start r2",
      "end r1",
      "end r2",
      "start w1",
      "end w1",
      "start r3",
      "end r3",
    ]);
    expect(resultsIn(state, 2).map((r) => r.content)).toEqual(["r1", "r2", "w1", "r3"]);
  });
});

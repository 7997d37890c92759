import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LoopEvent, LoopStop } from "../src/core/events.js";
import type { Message } from "../src/core/messages.js";
import { agentLoop, createLoopState, type LoopState } from "../src/loop.js";
import { createBashTool } from "../src/tools/bash.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { providerFor } from "./support/anthropic-harness.js";
import {
  type FakeAnthropic,
  type FakeBlock,
  reply,
  startFakeAnthropic,
  text,
  toolUse,
} from "./support/fake-anthropic-server.js";

let fake: FakeAnthropic;
let workdir: string;
beforeEach(async () => {
  fake = await startFakeAnthropic();
  workdir = mkdtempSync(join(tmpdir(), "agentloop-anthropic-"));
});
afterEach(() => fake.close());

async function runLoop(
  state: LoopState,
  options: { signal?: AbortSignal; repairs?: string[] } = {},
) {
  const provider = providerFor(fake, { onRepair: (repair) => options.repairs?.push(repair) });
  const toolbox = createToolbox([createBashTool({ cwd: workdir })]);
  const events: LoopEvent[] = [];
  const loop = agentLoop(state, {
    provider,
    toolbox,
    system: `You work in ${workdir}.`,
    maxTurns: 10,
    signal: options.signal,
  });
  while (true) {
    const step = await loop.next();
    if (step.done) return { stop: step.value as LoopStop, events };
    events.push(step.value);
  }
}

const accepted = () => fake.requests.every((request) => request.status === 200);
const lastMessageOf = (index: number) => fake.requests[index]?.body.messages.at(-1);

describe("the agent loop on the Anthropic provider", () => {
  it("runs bash and sends its output back in a request the API accepts", async () => {
    fake.script([
      reply(text("Let me look."), toolUse("toolu_1", "bash", { command: "echo hello from bash" })),
      reply(text("It printed hello.")),
    ]);
    const state = createLoopState([{ role: "user", content: "say hello" }]);
    const { stop } = await runLoop(state);
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "It printed hello." });
    expect(fake.requests).toHaveLength(2);
    expect(accepted()).toBe(true);
    expect(lastMessageOf(1)).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: false }],
    });
    expect(JSON.stringify(lastMessageOf(1))).toContain("hello from bash");
  });

  it("answers a tool call cut off by max_tokens instead of running it", async () => {
    const target = join(workdir, "never-written");
    const cut: FakeBlock = {
      type: "tool_use",
      id: "toolu_cut",
      name: "bash",
      partialJson: `{"command":"echo hi > ${target}","timeout":3`,
    };
    fake.script([{ ...reply(cut), stopReason: "max_tokens" }, reply(text("I will write less."))]);
    const { stop } = await runLoop(createLoopState([{ role: "user", content: "write a file" }]));
    expect(stop.reason).toBe("end_turn");
    expect(existsSync(target)).toBe(false);
    expect(accepted()).toBe(true);
    expect(lastMessageOf(1)).toMatchObject({
      content: [{ tool_use_id: "toolu_cut", is_error: true }],
    });
  });

  it("continues a pause_turn by sending the paused message back as the last one", async () => {
    fake.script([
      { ...reply(text("Working on it,\n")), stopReason: "pause_turn" },
      reply(text("done.")),
    ]);
    const { stop } = await runLoop(createLoopState([{ role: "user", content: "long task" }]));
    expect(stop.reason).toBe("end_turn");
    expect(accepted()).toBe(true);
    expect(lastMessageOf(1)).toMatchObject({ role: "assistant" });
  });

  it("goes on after a turn interrupted mid-stream, merging the next prompt into valid history", async () => {
    fake.script([
      reply(toolUse("toolu_1", "bash", { command: "echo first" })),
      { kind: "stall", content: [text("Now I will")] },
      reply(text("Understood, stopping.")),
    ]);
    const state = createLoopState([{ role: "user", content: "start" }]);
    const user = new AbortController();
    const interrupted = runLoop(state, { signal: user.signal });
    while (fake.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    user.abort();
    expect((await interrupted).stop.reason).toBe("interrupted");

    state.messages.push({ role: "user", content: "stop and summarise" } satisfies Message);
    const repairs: string[] = [];
    const { stop } = await runLoop(state, { repairs });
    expect(stop.finalText).toBe("Understood, stopping.");
    expect(accepted()).toBe(true);
    expect(repairs).toEqual([]);
  });

  it("answers malformed tool input with an error the model reads, and runs nothing", async () => {
    fake.script([
      reply(
        toolUse("toolu_m1", "bash", { cmd: "touch should-not-exist" }),
        toolUse("toolu_m2", "python", { code: "print(1)" }),
      ),
      reply(text("I will use the right field.")),
    ]);
    const state = createLoopState([{ role: "user", content: "go" }]);
    const { stop } = await runLoop(state);
    expect(stop.reason).toBe("end_turn");
    expect(accepted()).toBe(true);
    expect(existsSync(join(workdir, "should-not-exist"))).toBe(false);
    expect(lastMessageOf(1)).toMatchObject({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_m1", is_error: true },
        { type: "tool_result", tool_use_id: "toolu_m2", is_error: true },
      ],
    });
    expect(JSON.stringify(lastMessageOf(1))).toMatch(
      /required field \\"command\\" is missing.*Unknown tool \\"python\\"/,
    );
  });

  it("keeps the conversation valid when the model repeats a tool_use id in one reply", async () => {
    fake.script([
      reply(
        toolUse("toolu_dup", "bash", { command: "echo one" }),
        toolUse("toolu_dup", "bash", { command: "echo two" }),
      ),
      reply(text("Both ran.")),
    ]);
    const repairs: string[] = [];
    const state = createLoopState([{ role: "user", content: "go" }]);
    const { stop } = await runLoop(state, { repairs });
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "Both ran." });
    expect(accepted()).toBe(true);
    expect(repairs.join(" ")).toMatch(/toolu_dup/);
    const results = lastMessageOf(1)?.content as unknown as { content: string }[];
    expect(results.map((result) => result.content.split("\n")[0])).toEqual(["one", "two"]);
  });
});

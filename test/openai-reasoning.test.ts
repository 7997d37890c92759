// Given a Chat Completions server whose model reasons by default (DeepSeek V4's thinking mode)
// and refuses a tool-calling history without its reasoning, the loop keeps the reasoning with
// its message, sends it back, and shows it as thinking, never as the answer.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage } from "../src/core/messages.js";
import { agentLoop, createLoopState } from "../src/loop.js";
import { createOpenAIProvider } from "../src/providers/openai.js";
import { createBashTool } from "../src/tools/bash.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { drain } from "./support/drain.js";
import { REASONING_NOT_PASSED_BACK } from "./support/fake-openai-reasoning.js";
import { type FakeOpenAI, type FakeTurn, startFakeOpenAI } from "./support/fake-openai-server.js";
import { bash, text } from "./support/scripted-provider.js";

const servers: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function runLoop(turns: FakeTurn[], model = "deepseek-flash") {
  const server = await startFakeOpenAI();
  server.script(turns);
  servers.push(server);
  const cwd = mkdtempSync(join(tmpdir(), "agentloop-reasoning-"));
  const state = createLoopState([{ role: "user", content: "do the task" }]);
  const loop = agentLoop(state, {
    provider: createOpenAIProvider({ baseURL: server.url, model, apiKey: "k" }),
    toolbox: createToolbox([createBashTool({ cwd })]),
    system: "You are a test.",
    maxTurns: 10,
  });
  const { result: stop, events } = await drain(loop);
  return { server, state, stop, events };
}

const assistantMessages = (body: Record<string, unknown>) =>
  (body.messages as Record<string, unknown>[]).filter((message) => message.role === "assistant");

describe("reasoning_content on Chat Completions", () => {
  it("goes back with every tool-calling message, and a multi-step task completes", async () => {
    const { server, state, stop, events } = await runLoop([
      { kind: "reply", reasoning: "First I list.", content: [bash("call_1", "echo one")] },
      { kind: "reply", content: [text("Then."), bash("call_2", "echo two")] },
      { kind: "reply", reasoning: "All done.", content: [text("Both ran.")] },
    ]);
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "Both ran." });
    const sent = assistantMessages(server.requests[2]?.body ?? {});
    expect(sent.map((message) => message.reasoning_content)).toEqual([
      "First I list.",
      "Working out request 2.",
    ]);
    expect((state.messages[1] as AssistantMessage).content[0]).toEqual({
      type: "thinking",
      thinking: "First I list.",
    });
    const thought = events.flatMap((event) =>
      event.type === "thinking_delta" ? [event.text] : [],
    );
    expect(thought.join("")).toBe("First I list.Working out request 2.All done.");
  });

  it("reads reasoning streamed as `reasoning`, as vLLM and Ollama send it", async () => {
    const { state } = await runLoop(
      [{ kind: "reply", reasoning: "Hmm.", quirks: ["reasoning_field"], content: [text("Hi.")] }],
      "qwen3-coder",
    );
    expect((state.messages[1] as AssistantMessage).content).toEqual([
      { type: "thinking", thinking: "Hmm." },
      { type: "text", text: "Hi." },
    ]);
  });

  it("is required by the fake server, with DeepSeek's words (so the test above means something)", async () => {
    const server = await startFakeOpenAI();
    servers.push(server);
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "deepseek-v4-pro",
        stream: true,
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "c1", type: "function", function: { name: "bash", arguments: "{}" } },
            ],
          },
          { role: "tool", tool_call_id: "c1", content: "ok" },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain(REASONING_NOT_PASSED_BACK);
  });
});

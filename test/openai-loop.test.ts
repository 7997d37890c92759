import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Message, ToolResultBlock } from "../src/core/messages.js";
import { agentLoop, createLoopState } from "../src/loop.js";
import { createOpenAIProvider } from "../src/providers/openai.js";
import { createBashTool } from "../src/tools/bash.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { drain } from "./support/drain.js";
import {
  type FakeOpenAI,
  type FakeTurn,
  type RecordedRequest,
  startFakeOpenAI,
} from "./support/fake-openai-server.js";
import { bash, text } from "./support/scripted-provider.js";

const servers: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function runLoop(turns: FakeTurn[]) {
  const server = await startFakeOpenAI();
  server.script(turns);
  servers.push(server);
  const cwd = mkdtempSync(join(tmpdir(), "agentloop-openai-"));
  const state = createLoopState([{ role: "user", content: "do the task" }]);
  const { result: stop } = await drain(
    agentLoop(state, {
      provider: createOpenAIProvider({ baseURL: server.url, model: "fake-model" }),
      toolbox: createToolbox([createBashTool({ cwd })]),
      system: "You are a test.",
      maxTurns: 10,
    }),
  );
  return { server, state, stop, cwd };
}

/** The tool messages the model was sent in a request, as {id: content}. */
function toolMessages(request: RecordedRequest): Record<string, string> {
  const messages = request.body.messages as {
    role: string;
    tool_call_id?: string;
    content: string;
  }[];
  return Object.fromEntries(
    messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]),
  );
}

function firstResult(message: Message | undefined): ToolResultBlock | undefined {
  return (message?.content as ToolResultBlock[] | undefined)?.[0];
}

describe("the agent loop on the OpenAI provider", () => {
  it("runs bash calls over several turns, and every request passes the strict check", async () => {
    const { server, state, stop, cwd } = await runLoop([
      {
        kind: "reply",
        content: [text("Two at once."), bash("c1", "echo one > f"), bash("c2", "echo two")],
      },
      { kind: "reply", content: [bash("c3", "cat f")], quirks: ["empty_name_later"] },
      {
        kind: "reply",
        content: [text("Checking."), bash("c4", "ls")],
        quirks: ["no_ids"],
        finish: "stop",
      },
      { kind: "reply", content: [text("All done.")] },
    ]);
    expect(server.requests.map((request) => request.rejection)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "All done." });
    expect(existsSync(join(cwd, "f"))).toBe(true);
    expect(toolMessages(server.requests[1] as RecordedRequest).c2).toMatch(/^two/);
    expect(toolMessages(server.requests[2] as RecordedRequest).c3).toMatch(/^one/);
    expect(Object.keys(toolMessages(server.requests[3] as RecordedRequest))).toEqual([
      "c1",
      "c2",
      "c3",
      expect.stringMatching(/^call_[0-9a-f]{12}_0$/),
    ]);
    expect(state.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("answers a call with invalid argument JSON with an error naming it, and runs nothing", async () => {
    const broken = '{"command": "touch ran", ';
    const { server, state, cwd } = await runLoop([
      {
        kind: "reply",
        content: [{ type: "tool_use", id: "c1", name: "bash", partialJson: broken }],
      },
      { kind: "reply", content: [text("I will fix my JSON.")] },
    ]);
    expect(server.requests.map((request) => request.status)).toEqual([200, 200]);
    expect(existsSync(join(cwd, "ran"))).toBe(false);
    const result = firstResult(state.messages[2]);
    expect(result).toMatchObject({ tool_use_id: "c1", is_error: true });
    expect(result?.content).toBe(
      `Invalid input for bash: expected a JSON object, got the string ${JSON.stringify(broken)}.`,
    );
    expect(toolMessages(server.requests[1] as RecordedRequest).c1).toBe(result?.content);
  });

  it("answers a tool call cut off by the length limit instead of running it", async () => {
    const cutOff = '{"command": "touch ran';
    const { server, state, cwd } = await runLoop([
      {
        kind: "reply",
        content: [{ type: "tool_use", id: "c1", name: "bash", partialJson: cutOff }],
        stopReason: "max_tokens",
      },
      { kind: "reply", content: [text("Smaller steps then.")] },
    ]);
    expect(server.requests.map((request) => request.status)).toEqual([200, 200]);
    expect(existsSync(join(cwd, "ran"))).toBe(false);
    const result = firstResult(state.messages[2]);
    expect(result?.content).toMatch(/cut off by the output token limit/);
  });
});

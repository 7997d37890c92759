// Given a model that thinks (the Claude 5 family) and a fake API that enforces the real rules
// for thinking, the loop keeps every block of every reply and every request is accepted.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LoopEvent, LoopStop } from "../src/core/events.js";
import type { AssistantMessage, Message } from "../src/core/messages.js";
import { agentLoop, createLoopState, type LoopState } from "../src/loop.js";
import { messagesRequestBody } from "../src/providers/anthropic.js";
import type { ThinkingOptions } from "../src/providers/thinking-options.js";
import { createBashTool } from "../src/tools/bash.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { ask, providerFor } from "./support/anthropic-harness.js";
import {
  type FakeAnthropic,
  reply,
  startFakeAnthropic,
  text,
  thinking,
  toolUse,
} from "./support/fake-anthropic-server.js";

let fake: FakeAnthropic;
let workdir: string;
beforeEach(async () => {
  fake = await startFakeAnthropic();
  workdir = mkdtempSync(join(tmpdir(), "agentloop-thinking-"));
});
afterEach(() => fake.close());

async function runLoop(state: LoopState, model: string, showThinking = false) {
  const provider = providerFor(fake, { model, thinking: { showThinking } });
  const toolbox = createToolbox([createBashTool({ cwd: workdir })]);
  const events: LoopEvent[] = [];
  const loop = agentLoop(state, { provider, toolbox, system: "Test.", maxTurns: 10 });
  while (true) {
    const step = await loop.next();
    if (step.done) return { stop: step.value as LoopStop, events };
    events.push(step.value);
  }
}

const statuses = () => fake.requests.map((request) => request.status);
const bashCall = (id: string, command: string) => toolUse(id, "bash", { command });

describe("a tool-using task on a model that thinks", () => {
  it("completes with no rejected request, sending each reply back as it came", async () => {
    fake.script([
      reply(bashCall("toolu_1", "echo one")),
      reply(text("Next."), bashCall("toolu_2", "echo two")),
      reply(text("Both ran.")),
    ]);
    const state = createLoopState([{ role: "user", content: "run two commands" }]);
    const { stop } = await runLoop(state, "claude-sonnet-5-5");
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "Both ran." });
    expect(statuses()).toEqual([200, 200, 200]);
    // Sonnet 5.5 shows no thinking by default: an empty text, a signature, sent back unchanged.
    const first = state.messages[1] as AssistantMessage;
    expect(first.content[0]).toMatchObject({ type: "thinking", thinking: "" });
    expect(first.model).toBe("claude-sonnet-5-5");
    const sentBack = fake.requests[1]?.body.messages[1];
    expect(sentBack).toEqual({ role: "assistant", content: first.content });
  });

  it("streams thinking as thinking when the REPL asks to see it, never as the answer", async () => {
    fake.script([reply(thinking("The user wants a greeting."), text("Hello."))]);
    const state = createLoopState([{ role: "user", content: "greet me" }]);
    const { stop, events } = await runLoop(state, "claude-sonnet-5-5", true);
    expect(fake.requests[0]?.body.thinking).toEqual({ type: "adaptive", display: "summarized" });
    const thought = events.flatMap((event) =>
      event.type === "thinking_delta" ? [event.text] : [],
    );
    expect(thought.join("")).toBe("The user wants a greeting.");
    expect(stop.finalText).toBe("Hello.");
  });

  it("sends a redacted thinking block back with its data", async () => {
    fake.script([
      { kind: "reply", content: [{ type: "redacted_thinking" }, bashCall("toolu_1", "true")] },
      reply(text("Done.")),
    ]);
    const state = createLoopState([{ role: "user", content: "go" }]);
    await runLoop(state, "claude-opus-5");
    expect(statuses()).toEqual([200, 200]);
    expect((state.messages[1] as AssistantMessage).content[0]?.type).toBe("redacted_thinking");
  });

  it("goes on after max_tokens inside the thinking without sending the unsigned block", async () => {
    fake.script([
      {
        kind: "reply",
        content: [{ type: "thinking", thinking: "Long", cutOff: true }],
        stopReason: "max_tokens",
      },
      reply(text("Here is the answer.")),
    ]);
    const state = createLoopState([{ role: "user", content: "think hard" }]);
    const { stop } = await runLoop(state, "claude-sonnet-5");
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "Here is the answer." });
    expect(statuses()).toEqual([200, 200]);
    const sent = JSON.stringify(fake.requests[1]?.body.messages);
    expect(sent).not.toContain('"signature":""');
  });

  it("sends no thinking to a model other than the one that wrote it", async () => {
    fake.script([reply(bashCall("toolu_1", "echo one")), reply(text("One."))]);
    const state = createLoopState([{ role: "user", content: "first task" }]);
    await runLoop(state, "claude-sonnet-5-5");
    // The user switches models (/model) and asks again: the fake rejects foreign signatures.
    state.messages.push({ role: "user", content: "second task" });
    fake.script([reply(bashCall("toolu_2", "echo two")), reply(text("Two."))]);
    const { stop } = await runLoop(state, "claude-opus-5");
    expect(stop.finalText).toBe("Two.");
    expect(statuses()).toEqual([200, 200, 200, 200]);
    const toOpus = fake.requests[2]?.body.messages ?? [];
    expect(JSON.stringify(toOpus.slice(0, 4))).not.toContain("thinking");
    // The stored history still holds what Sonnet 5.5 wrote.
    expect((state.messages[1] as AssistantMessage).content[0]?.type).toBe("thinking");
  });
});

describe("the thinking the fake API enforces (so the tests above mean something)", () => {
  it("rejects a tool-use cycle sent back without its thinking, with the API's words", async () => {
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k" },
      body: JSON.stringify({
        model: "claude-sonnet-5-5",
        max_tokens: 100,
        stream: true,
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: [bashCall("toolu_1", "true")] },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }],
          },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain(
      "Expected `thinking` or `redacted_thinking`, but found `tool_use`",
    );
  });

  it("rejects a thinking block whose text was changed", async () => {
    fake.script([
      reply(thinking("I will list files."), bashCall("toolu_1", "ls")),
      reply(text("x")),
    ]);
    const state = createLoopState([{ role: "user", content: "list" }]);
    const provider = providerFor(fake, { model: "claude-sonnet-5", maxAttempts: 1 });
    const first = await ask(provider, state.messages);
    const message = first.reply?.message as AssistantMessage;
    const edited = message.content.map((block) =>
      block.type === "thinking" ? { ...block, thinking: "I will delete files." } : block,
    );
    const history: Message[] = [
      ...state.messages,
      { role: "assistant", content: edited },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a" }] },
    ];
    const { error } = await ask(provider, history);
    expect(error?.message).toContain("Invalid `signature` in `thinking` block");
  });
});

describe("the thinking settings sent to each model", () => {
  const body = (model: string, thinkingOptions: ThinkingOptions) => ({
    provider: providerFor(fake, { model, thinking: thinkingOptions }),
  });

  it("turns thinking off on Sonnet 5.5 with between_tools, on Opus 5 with disabled", async () => {
    fake.script([reply(text("a")), reply(text("b"))]);
    await ask(body("claude-sonnet-5-5", { thinking: "off" }).provider);
    await ask(body("claude-opus-5", { thinking: "off", effort: "low" }).provider);
    expect(fake.requests[0]?.body.thinking).toEqual({ type: "between_tools" });
    expect(fake.requests[1]?.body).toMatchObject({
      thinking: { type: "disabled" },
      output_config: { effort: "low" },
    });
    expect(statuses()).toEqual([200, 200]);
  });

  it("refuses, before any request, what a model cannot take, in one sentence", () => {
    expect(() => body("claude-opus-5-5", { thinking: "off" })).toThrow(
      "claude-opus-5-5 always thinks: --thinking off does not apply to it.",
    );
    expect(() => body("claude-haiku-4-5", { effort: "high" })).toThrow(
      "claude-haiku-4-5 takes no effort level: leave out --effort.",
    );
    expect(() => body("claude-sonnet-5-5", { thinking: "off", effort: "max" })).toThrow(
      "--thinking off works with --effort low, medium or high",
    );
    expect(fake.requests).toHaveLength(0);
  });

  it("sends a block it does not know back exactly as it came", () => {
    const item = { type: "server_widget", id: "w_1", payload: { deep: [1, 2] } };
    const messages: Message[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        model: "claude-sonnet-5",
        content: [
          { type: "opaque", protocol: "anthropic", item },
          { type: "text", text: "ok" },
        ],
      },
      { role: "user", content: "again" },
    ];
    const wire = messagesRequestBody(
      { system: "", messages, tools: [], signal: new AbortController().signal },
      { model: "claude-sonnet-5" },
    );
    expect(wire.messages[1]).toEqual({
      role: "assistant",
      content: [item, { type: "text", text: "ok" }],
    });
  });
});

describe("the SDK's deprecation warning", () => {
  it("reaches the user once per session as agentloop's notice, never on the console", async () => {
    fake.script([reply(text("a")), reply(text("b"))]);
    const notices: string[] = [];
    const warn = vi.spyOn(console, "warn");
    const provider = providerFor(fake, {
      model: "claude-sonnet-4-5",
      onNotice: (sentence) => notices.push(sentence),
    });
    await ask(provider);
    await ask(provider);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
    expect(notices).toEqual([
      "claude-sonnet-4-5 reaches end of life on November 30th, 2026; see https://docs.anthropic.com/en/docs/resources/model-deprecations for its successor.",
    ]);
  });
});

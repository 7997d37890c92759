import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import type { Message } from "../src/core/messages.js";
import { createAnthropicProvider } from "../src/providers/anthropic.js";
import { ask, providerFor, textOf } from "./support/anthropic-harness.js";
import {
  type FakeAnthropic,
  type FakeCutToolUse,
  type FakeReply,
  reply,
  startFakeAnthropic,
  text,
  toolUse,
} from "./support/fake-anthropic-server.js";

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(() => fake.close());

const withStop = (stopReason: string, turn: FakeReply): FakeReply => ({ ...turn, stopReason });

describe("the Anthropic provider", () => {
  it("streams text as it arrives and returns the whole reply", async () => {
    fake.script([reply(text("Hello from the fake Anthropic server."))]);
    const { events, reply: answer } = await ask(providerFor(fake));
    expect(events.length).toBeGreaterThan(1);
    expect(textOf(events)).toBe("Hello from the fake Anthropic server.");
    expect(answer).toMatchObject({
      message: { role: "assistant", content: [text("Hello from the fake Anthropic server.")] },
      stopReason: "end_turn",
      rawStopReason: "end_turn",
    });
  });

  it("returns tool calls with the input streamed in pieces", async () => {
    const input = { command: "grep -rn 'needle' src | head -20" };
    fake.script([reply(text("Searching."), toolUse("toolu_1", "bash", input))]);
    const { reply: answer } = await ask(providerFor(fake));
    expect(answer?.message.content).toEqual([
      text("Searching."),
      { type: "tool_use", id: "toolu_1", name: "bash", input },
    ]);
    expect(answer?.stopReason).toBe("tool_use");
  });

  it("drops an empty text block from the reply, so it is never sent back", async () => {
    fake.script([reply(text(""), toolUse("toolu_1", "bash", { command: "ls" }))]);
    const { reply: answer } = await ask(providerFor(fake));
    expect(answer?.message.content.map((block) => block.type)).toEqual(["tool_use"]);
  });

  it("reports max_tokens for a tool call cut off inside its input, however it parsed", async () => {
    const cut: FakeCutToolUse = {
      type: "tool_use",
      id: "toolu_1",
      name: "bash",
      partialJson: '{"command":"ec',
    };
    fake.script([withStop("max_tokens", reply(cut))]);
    const { reply: answer } = await ask(providerFor(fake));
    expect(answer?.stopReason).toBe("max_tokens");
    expect(answer?.message.content[0]).toMatchObject({ type: "tool_use", id: "toolu_1" });
  });

  it.each([
    ["pause_turn", "pause_turn"],
    ["refusal", "refusal"],
    ["stop_sequence", "stop_sequence"],
    // The reply filled the window: cut off as by max_tokens, continued after compaction.
    ["model_context_window_exceeded", "max_tokens"],
    ["a_reason_of_a_newer_api", "unknown"],
  ])("maps stop_reason %s to %s, keeping the raw reason", async (raw, mapped) => {
    fake.script([withStop(raw, reply(text("So far.")))]);
    const { reply: answer } = await ask(providerFor(fake));
    expect(answer).toMatchObject({ stopReason: mapped, rawStopReason: raw });
  });

  it("sends the API key, model and max_tokens (32,000 for a model the table does not know)", async () => {
    fake.script([reply(text("ok"))]);
    await ask(providerFor(fake, { model: "claude-chosen" }));
    const [request] = fake.requests;
    expect(request?.headers.authorization).toBe("Bearer test-key");
    expect(request?.body).toMatchObject({
      model: "claude-chosen",
      max_tokens: 32_000,
      stream: true,
    });
  });

  it("asks a known model for its largest output", async () => {
    fake.script([reply(text("ok"))]);
    await ask(providerFor(fake, { model: "claude-sonnet-5-5" }));
    expect(fake.requests[0]?.body.max_tokens).toBe(128_000);
  });

  it("puts cache breakpoints on the last tool, the system prompt and the newest block only", async () => {
    fake.script([reply(text("ok"))]);
    const messages: Message[] = [
      { role: "user", content: "first" },
      { role: "assistant", content: [text("answer")] },
      { role: "user", content: [text("second"), text("third")] },
    ];
    const before = structuredClone(messages);
    const provider = providerFor(fake);
    const tools = [
      {
        name: "read",
        description: "Read.",
        input_schema: { type: "object" as const, properties: {} },
      },
      {
        name: "bash",
        description: "Run.",
        input_schema: { type: "object" as const, properties: {} },
      },
    ];
    const stream = provider.stream({
      system: "sys",
      messages,
      tools,
      signal: new AbortController().signal,
    });
    while (!(await stream.next()).done) {}
    const body = fake.requests[0]?.body;
    const ephemeral = { type: "ephemeral" };
    expect(body?.tools?.map((tool) => tool.cache_control)).toEqual([undefined, ephemeral]);
    expect(body?.system).toEqual([{ type: "text", text: "sys", cache_control: ephemeral }]);
    expect(body?.messages.at(-1)?.content).toEqual([
      text("second"),
      { ...text("third"), cache_control: ephemeral },
    ]);
    expect(JSON.stringify(body?.messages.slice(0, -1))).not.toContain("cache_control");
    expect(messages).toEqual(before);
  });

  it("reads the cached conversation back on the next turn, and reports it in usage", async () => {
    fake.script([reply(text("first answer")), reply(text("second answer"))]);
    const provider = providerFor(fake);
    const messages: Message[] = [{ role: "user", content: "a question" }];
    const first = await ask(provider, messages);
    expect(first.reply?.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(first.reply?.usage.cache_read_input_tokens).toBe(0);
    messages.push(first.reply?.message as Message, { role: "user", content: "and another" });
    const second = await ask(provider, messages);
    expect(second.reply?.usage.cache_read_input_tokens).toBe(
      first.reply?.usage.cache_creation_input_tokens,
    );
    expect(second.reply?.usage.input_tokens).toBeGreaterThanOrEqual(0);
    expect(second.reply?.usage.output_tokens).toBeGreaterThan(0);
  });

  it("repairs the transcript before sending it and reports each repair", async () => {
    fake.script([reply(text("understood"))]);
    const repairs: string[] = [];
    const messages: Message[] = [
      { role: "user", content: "run it" },
      {
        role: "assistant",
        content: [toolUse("toolu_1", "bash", { command: "sleep 100" })],
      },
      { role: "user", content: "never mind" },
    ];
    const { reply: answer } = await ask(
      providerFor(fake, { onRepair: (r) => repairs.push(r) }),
      messages,
    );
    expect(answer?.stopReason).toBe("end_turn");
    expect(repairs).toEqual([expect.stringContaining("toolu_1")]);
    expect(fake.requests[0]?.status).toBe(200);
    expect(fake.requests[0]?.body.messages.at(-1)?.content).toMatchObject([
      { type: "tool_result", tool_use_id: "toolu_1", is_error: true },
      { type: "text", text: "never mind" },
    ]);
  });

  it("sends a tool input that is not a JSON object, as another provider may record, as {}", async () => {
    // An OpenAI-compatible model's arguments that are not JSON stay the raw string in the
    // history; a session resumed with --provider anthropic must still be accepted.
    fake.script([reply(text("I will send JSON next time."))]);
    const rawCall = { type: "tool_use" as const, id: "call_1", name: "bash", input: "ls -la" };
    const messages: Message[] = [
      { role: "user", content: "list the files" },
      { role: "assistant", content: [rawCall] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_1", content: "not JSON", is_error: true },
        ],
      },
    ];
    const { reply: answer } = await ask(providerFor(fake), messages);
    expect(answer?.stopReason).toBe("end_turn");
    expect(fake.requests[0]?.status).toBe(200);
    expect(fake.requests[0]?.body.messages[1]?.content).toEqual([{ ...rawCall, input: {} }]);
    expect(messages[1]?.content).toEqual([rawCall]);
  });

  it("refuses to start without an API key, naming the variable", () => {
    expect(() => createAnthropicProvider({ apiKey: "", model: "m" })).toThrow(ConfigError);
    expect(() => createAnthropicProvider({ apiKey: "", model: "m" })).toThrow(/ANTHROPIC_API_KEY/);
  });
});

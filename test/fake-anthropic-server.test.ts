import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type FakeAnthropic,
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

const post = (body: Record<string, unknown>, url = fake.url) =>
  fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "test-key" },
    body: JSON.stringify({ model: "claude-test", max_tokens: 100, stream: true, ...body }),
  });

const prompt = { role: "user", content: "hi" };
const call = (id: string) => ({ type: "tool_use", id, name: "bash", input: { command: "ls" } });
const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });
const tokens = { type: "text", text: "x", cache_control: { type: "ephemeral" } };

describe("the fake Anthropic server's request validation", () => {
  it.each([
    [
      "a tool_use without a tool_result right after it",
      [prompt, { role: "assistant", content: [call("toolu_1")] }, { role: "user", content: "no" }],
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1.",
    ],
    [
      "a tool_result for a call the previous message did not make",
      [prompt, { role: "assistant", content: "sure" }, { role: "user", content: [result("t9")] }],
      "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t9.",
    ],
    [
      "a repeated tool_use id",
      [
        prompt,
        { role: "assistant", content: [call("t1"), call("t1")] },
        { role: "user", content: [result("t1")] },
      ],
      "messages.1.content.1: `tool_use` ids must be unique",
    ],
    [
      "an empty text block",
      [{ role: "user", content: [{ type: "text", text: "" }] }],
      "messages.0.content.0.text: text content blocks must be non-empty",
    ],
    [
      "two user messages in a row",
      [prompt, prompt],
      'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
    ],
    [
      "a first message from the assistant",
      [{ role: "assistant", content: "hello" }, prompt],
      'messages: first message must use the "user" role',
    ],
    [
      "a tool_result after other content",
      [
        prompt,
        { role: "assistant", content: [call("t1")] },
        { role: "user", content: [{ type: "text", text: "note" }, result("t1")] },
      ],
      "messages.2.content.1: `tool_result` blocks must come before any other content",
    ],
    [
      "more than four cache breakpoints",
      [{ role: "user", content: [tokens, tokens, tokens, tokens, tokens] }],
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    ],
  ])("rejects %s with the API's 400", async (_name, messages, expected) => {
    fake.script([reply(text("should not be used"))]);
    const response = await post({ messages });
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      type: string;
      error: { type: string; message: string };
    };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain(expected);
    // A rejected request does not use up the scripted turn.
    expect((await post({ messages: [prompt] })).status).toBe(200);
  });

  it("accepts a final assistant message, which is how pause_turn continues", async () => {
    fake.script([reply(text("continuing"))]);
    const response = await post({ messages: [prompt, { role: "assistant", content: "so far" }] });
    expect(response.status).toBe(200);
  });

  it("rejects a request without an API key", async () => {
    const response = await fetch(`${fake.url}/v1/messages`, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
  });
});

describe("the fake Anthropic server's stream", () => {
  async function events(response: Response) {
    const raw = await response.text();
    return raw
      .trim()
      .split("\n\n")
      .map((chunk) => {
        const [eventLine, dataLine] = chunk.split("\n");
        return { event: eventLine?.slice(7), data: JSON.parse(dataLine?.slice(6) ?? "null") };
      });
  }

  it("speaks the Messages SSE protocol, splitting text and tool input into several deltas", async () => {
    fake.script([reply(text("Hello, streaming world"), toolUse("t1", "bash", { command: "ls" }))]);
    const sent = await events(await post({ messages: [prompt] }));
    const names = sent.map((event) => event.event);
    expect(names.slice(0, 3)).toEqual(["message_start", "ping", "content_block_start"]);
    expect(names.slice(-2)).toEqual(["message_delta", "message_stop"]);
    const deltas = sent.filter((event) => event.event === "content_block_delta");
    const textDeltas = deltas.filter((event) => event.data.index === 0);
    const jsonDeltas = deltas.filter((event) => event.data.index === 1);
    expect(textDeltas.length).toBeGreaterThan(1);
    expect(jsonDeltas.length).toBeGreaterThan(1);
    expect(textDeltas.map((event) => event.data.delta.text).join("")).toBe(
      "Hello, streaming world",
    );
    const json = jsonDeltas.map((event) => event.data.delta.partial_json).join("");
    expect(JSON.parse(json)).toEqual({ command: "ls" });
    expect(sent.at(-2)?.data.delta.stop_reason).toBe("tool_use");
    expect(sent[0]?.data.message.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
  });

  it("reads back a prefix cached by an earlier request's breakpoint", async () => {
    fake.script([reply(text("one")), reply(text("two"))]);
    const marked = { type: "text", text: "a long prompt", cache_control: { type: "ephemeral" } };
    const first = await events(await post({ messages: [{ role: "user", content: [marked] }] }));
    const second = await events(
      await post({
        messages: [
          { role: "user", content: [{ type: "text", text: "a long prompt" }] },
          { role: "assistant", content: "one" },
          { role: "user", content: [{ ...marked, text: "more" }] },
        ],
      }),
    );
    const written = first[0]?.data.message.usage.cache_creation_input_tokens;
    expect(written).toBeGreaterThan(0);
    expect(second[0]?.data.message.usage.cache_read_input_tokens).toBe(written);
  });

  it("starts the script over when asked to cycle", async () => {
    fake.script([reply(text("again"))], { cycle: true });
    for (let i = 0; i < 3; i += 1) expect((await post({ messages: [prompt] })).status).toBe(200);
  });

  it("runs on its own, printing its URL and serving its record of requests", async () => {
    const script = JSON.stringify([reply(text("from the standalone fake"))]);
    const main = "test/support/fake-anthropic-main.ts";
    const child = spawn(process.execPath, ["--import", "tsx", main], {
      env: { ...process.env, FAKE_ANTHROPIC_SCRIPT: script },
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const lines = createInterface({ input: child.stdout });
      const [url] = (await once(lines, "line")) as [string];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await (await post({ messages: [prompt] }, url)).text()).toContain("message_stop");
      const recorded = await (await fetch(`${url}/_fake/requests`)).json();
      expect(recorded).toMatchObject([{ status: 200, body: { messages: [prompt] } }]);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });
});

import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countTokens } from "./support/fake-anthropic-cache.js";
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

describe("the fake Anthropic server's context window", () => {
  // `{"type":"text","text":""}` is 25 characters, and a token is four characters of a block's
  // JSON, so this text makes a one-block prompt of exactly `tokens` tokens.
  const promptOf = (tokens: number, marked = false) => ({
    role: "user" as const,
    content: [
      {
        type: "text" as const,
        text: "x".repeat(tokens * 4 - 25),
        ...(marked ? { cache_control: { type: "ephemeral" as const } } : {}),
      },
    ],
  });

  const client = () => new Anthropic({ apiKey: "test-key", baseURL: fake.url, maxRetries: 0 });

  /** Sends a request through the SDK: its reply text and usage, or the APIError it threw. */
  async function send(tokens: number, { maxTokens = 100, marked = false } = {}) {
    const stream = client().messages.stream({
      model: "claude-test",
      max_tokens: maxTokens,
      messages: [promptOf(tokens, marked)],
    });
    try {
      const message = await stream.finalMessage();
      const block = message.content[0];
      return { text: block?.type === "text" ? block.text : "", usage: message.usage };
    } catch (error) {
      if (error instanceof APIError) return { error };
      throw error;
    }
  }

  it("counts a token for every four characters of each block's JSON", () => {
    expect(countTokens({ messages: [promptOf(1_200)] })).toBe(1_200);
  });

  it("given a 1,000-token window, refuses a 1,200-token request in the API's words, keeping the turn", async () => {
    fake.setContextWindow(1_000);
    fake.script([reply(text("the scripted reply"))]);

    const { error } = await send(1_200);
    expect(error?.status).toBe(400);
    expect(error?.type).toBe("invalid_request_error");
    expect(error?.apiMessage).toBe("prompt is too long: 1200 tokens > 1000 maximum");
    expect(fake.requests[0]).toMatchObject({ status: 400, tokens: 1_200 });

    // The refusal did not use up the turn: a request that fits gets it.
    expect(await send(800)).toMatchObject({ text: "the scripted reply" });
  });

  it("takes its window at start, and answers requests that fit", async () => {
    const small = await startFakeAnthropic({ contextWindow: 1_000 });
    try {
      small.script([reply(text("fits"))]);
      const anthropic = new Anthropic({ apiKey: "k", baseURL: small.url, maxRetries: 0 });
      const sent = { model: "claude-test", max_tokens: 100, messages: [promptOf(900)] };
      const message = await anthropic.messages.stream(sent).finalMessage();
      expect(message.content).toMatchObject([{ type: "text", text: "fits" }]);
      expect(message.usage.input_tokens).toBe(900);
    } finally {
      await small.close();
    }
  });

  it("refuses a request whose max_tokens would not fit beside its input", async () => {
    fake.setContextWindow(1_000);
    fake.script([reply(text("the scripted reply"))]);

    const { error } = await send(900, { maxTokens: 200 });
    expect(error?.status).toBe(400);
    expect(error?.apiMessage).toBe(
      "input length and `max_tokens` exceed context limit: 900 + 200 > 1000, decrease input length or `max_tokens` and try again",
    );
    // Input and max_tokens that add up to the window exactly fit.
    expect(await send(900, { maxTokens: 100 })).toMatchObject({ text: "the scripted reply" });
  });

  it("lifts the limit when the window is set to undefined", async () => {
    fake.setContextWindow(1_000);
    fake.script([reply(text("no limit now"))]);
    expect((await send(1_200)).error?.status).toBe(400);
    fake.setContextWindow(undefined);
    expect(await send(1_200)).toMatchObject({ text: "no limit now" });
  });

  it("leaves the prompt cache as it was after a refused request", async () => {
    fake.setContextWindow(1_000);
    fake.script([reply(text("cached?"))]);
    // Had the refused request been accounted, its marked prompt would now be cached and the
    // same prompt, sent again once it fits, would read all of it.
    expect((await send(1_200, { marked: true })).error?.status).toBe(400);
    fake.setContextWindow(2_000);
    const { usage } = await send(1_200, { marked: true });
    expect(usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 1_200 });
    expect(fake.requests.map((request) => request.usage)).toEqual([
      undefined,
      { input_tokens: 0, cache_creation_input_tokens: 1_200, cache_read_input_tokens: 0 },
    ]);
  });

  it("answers what the intercept picks out without using up scripted turns", async () => {
    fake.script([reply(text("first")), reply(text("second"))], {
      intercept: (body) => {
        const last = body.messages.at(-1)?.content;
        return last === "summarize, please" ? reply(text("a summary")) : undefined;
      },
    });
    const ask = async (content: string) => {
      const messages = [{ role: "user" as const, content }];
      const stream = client().messages.stream({ model: "m", max_tokens: 100, messages });
      const message = await stream.finalMessage();
      return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    };
    expect(await ask("hi")).toBe("first");
    expect(await ask("summarize, please")).toBe("a summary");
    expect(await ask("summarize, please")).toBe("a summary");
    expect(await ask("hi")).toBe("second");
  });

  it("does not show the intercept a request it refuses", async () => {
    const seen: number[] = [];
    fake.setContextWindow(1_000);
    fake.script([reply(text("fits"))], {
      intercept: (body) => {
        seen.push(countTokens(body));
        return undefined;
      },
    });
    await send(1_200);
    await send(800);
    expect(seen).toEqual([800]);
  });

  it("records how many bytes each request body had", async () => {
    fake.script([reply(text("ok"))]);
    const body = { model: "claude-test", max_tokens: 100, stream: true, messages: [prompt] };
    const sent = JSON.stringify({ ...body, messages: [{ role: "user", content: "héllo ✓" }] });
    await fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "test-key" },
      body: sent,
    }).then((response) => response.text());
    expect(fake.requests[0]?.bytesReceived).toBe(Buffer.byteLength(sent));
    expect(fake.requests[0]?.bytesReceived).toBeGreaterThan(sent.length);
  });
});

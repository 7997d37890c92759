import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../src/core/messages.js";
import { createOpenAIProvider } from "../src/providers/openai.js";
import type { RetryPolicy } from "../src/providers/retry.js";
import { drain } from "./support/drain.js";
import { type FakeOpenAI, type FakeTurn, startFakeOpenAI } from "./support/fake-openai-server.js";
import { bash, text } from "./support/scripted-provider.js";

const servers: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const fast: Partial<RetryPolicy> = { initialDelayMs: 10, maxDelayMs: 20, idleTimeoutMs: 2_000 };

async function ask(
  turns: FakeTurn[],
  policy: Partial<RetryPolicy> = fast,
  messages: Message[] = [{ role: "user", content: "hi" }],
  onRepair?: (description: string) => void,
) {
  const server = await startFakeOpenAI();
  server.script(turns);
  servers.push(server);
  const provider = createOpenAIProvider({
    apiKey: "sk-test",
    baseURL: server.url,
    model: "fake-model",
    retryPolicy: policy,
    onRepair,
  });
  const request = { system: "", messages, tools: [], signal: new AbortController().signal };
  return { server, outcome: drain(provider.stream(request)) };
}

const answer: FakeTurn = { kind: "reply", content: [text("the answer")] };

describe("the OpenAI provider's retries", () => {
  it("waits as long as a 429's retry-after asks, then returns the next reply", async () => {
    const limited: FakeTurn = {
      kind: "http_error",
      status: 429,
      message: "Rate limit reached",
      headers: { "retry-after": "0.3" },
    };
    const { server, outcome } = await ask([limited, answer]);
    const { events, result } = await outcome;
    expect(events[0]).toMatchObject({ type: "retry", attempt: 2, delayMs: 300 });
    const [first, second] = server.requests;
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(290);
    expect(result.message.content).toEqual([text("the answer")]);
  });

  it("tries again after a 500", async () => {
    const failed: FakeTurn = {
      kind: "http_error",
      status: 500,
      message: "The server had an error",
    };
    const { server, outcome } = await ask([failed, answer]);
    const { events, result } = await outcome;
    expect(server.requests).toHaveLength(2);
    expect(events[0]).toMatchObject({
      type: "retry",
      reason: "The openai server failed (500: The server had an error).",
    });
    expect(result.message.content).toEqual([text("the answer")]);
  });

  it("abandons a stream that goes quiet and keeps only the next attempt's reply", async () => {
    const stalled: FakeTurn = { kind: "stall", content: [text("I will never finish this")] };
    const { outcome } = await ask([stalled, answer], { ...fast, idleTimeoutMs: 500 });
    const { events, result } = await outcome;
    const retry = events.find((event) => event.type === "retry");
    expect(retry).toMatchObject({ reason: expect.stringMatching(/sent nothing for 0.5 s/) });
    expect(result.message.content).toEqual([text("the answer")]);
  });

  it("counts tool-call fragments as activity, so a slow call is not taken for a stall", async () => {
    // About 28 chunks, 25 ms apart: 0.7 s in all, past the idle timeout of 0.5 s.
    const command = `echo ${"x".repeat(100)}`;
    const slow: FakeTurn = { kind: "reply", content: [bash("a", command)], chunkDelayMs: 25 };
    const { server, outcome } = await ask([slow], { ...fast, idleTimeoutMs: 500 });
    const { events, result } = await outcome;
    expect(events).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(result.message.content).toEqual([bash("a", command)]);
  });

  it("tries again when the connection drops mid-reply", async () => {
    const dropped: FakeTurn = { kind: "reset", content: [text("half of a reply")] };
    const { server, outcome } = await ask([dropped, answer]);
    const { events, result } = await outcome;
    expect(server.requests).toHaveLength(2);
    expect(events.find((event) => event.type === "retry")).toMatchObject({
      reason: expect.stringMatching(/broke off during the reply/),
    });
    expect(result.message.content).toEqual([text("the answer")]);
  });

  it("tries again when a stream ends without a finish reason", async () => {
    const cut: FakeTurn = { kind: "reply", content: [text("I was saying")], finish: null };
    const { events, result } = await (await ask([cut, answer])).outcome;
    expect(events.find((event) => event.type === "retry")).toMatchObject({
      reason: expect.stringMatching(/ended before the model finished/),
    });
    expect(result.message.content).toEqual([text("the answer")]);
  });

  it("does not try again when the key is rejected", async () => {
    const rejected: FakeTurn = { kind: "http_error", status: 401, message: "Bad key" };
    const { server, outcome } = await ask([rejected, answer]);
    await expect(outcome).rejects.toMatchObject({ kind: "authentication" });
    expect(server.requests).toHaveLength(1);
  });

  it("gives up after the last attempt and says how many were made", async () => {
    const failed: FakeTurn = { kind: "http_error", status: 503, message: "Overloaded" };
    const { server, outcome } = await ask([failed, failed, failed], { ...fast, maxAttempts: 3 });
    await expect(outcome).rejects.toMatchObject({
      kind: "server",
      message: "The openai server failed (503: Overloaded). Gave up after 3 attempts.",
    });
    expect(server.requests).toHaveLength(3);
  });
});

describe("the OpenAI provider's transcript repair", () => {
  it("answers a tool call left without a result, so the strict server accepts the request", async () => {
    const interrupted: Message[] = [
      { role: "user", content: "list the files" },
      { role: "assistant", content: [bash("call_1", "ls")] },
      { role: "user", content: "never mind, say hi" },
    ];
    const repairs: string[] = [];
    const { server, outcome } = await ask([answer], fast, interrupted, (repair) => {
      repairs.push(repair);
    });
    await outcome;
    expect(server.requests[0]?.rejection).toBeUndefined();
    expect(server.requests[0]?.body.messages).toEqual([
      { role: "user", content: "list the files" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "bash", arguments: '{"command":"ls"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: expect.stringMatching(/No result/) },
      { role: "user", content: "never mind, say hi" },
    ]);
    expect(repairs).toEqual([
      "Answered tool call call_1 (bash), which had no result, with an error.",
    ]);
  });
});

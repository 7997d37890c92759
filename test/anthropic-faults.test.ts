import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProviderError } from "../src/core/errors.js";
import { createAnthropicProvider } from "../src/providers/anthropic.js";
import {
  ask,
  fastRetries,
  providerFor,
  retriesIn,
  SHORT_IDLE_MS,
  textOf,
} from "./support/anthropic-harness.js";
import { closedPort } from "./support/closed-port.js";
import {
  type FakeAnthropic,
  httpError,
  overloaded,
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

const answer = reply(text("The complete answer."));
const gapBetweenRequests = () =>
  (fake.requests[1]?.receivedAt ?? 0) - (fake.requests[0]?.receivedAt ?? 0);

describe("retrying the Anthropic API", () => {
  it.each([
    ["529 overloaded", overloaded()],
    ["429 rate limit", httpError(429, "rate_limit_error", "Rate limited.")],
    ["500 api_error", httpError(500, "api_error", "Internal server error")],
    ["503", httpError(503, "api_error", "Service unavailable")],
    ["408", httpError(408, "timeout_error", "Request timeout")],
    ["409", httpError(409, "api_error", "Conflict")],
  ])("retries %s and returns the next attempt's reply", async (_name, fault) => {
    fake.script([fault, answer]);
    const { events, reply: got } = await ask(providerFor(fake));
    expect(fake.requests).toHaveLength(2);
    expect(retriesIn(events)).toMatchObject([{ type: "retry", attempt: 2 }]);
    expect(got?.message.content).toEqual([text("The complete answer.")]);
  });

  it("says why it retries, in the retry event", async () => {
    fake.script([overloaded(), answer]);
    const { events } = await ask(providerFor(fake));
    expect(retriesIn(events)[0]).toMatchObject({
      reason: "The Anthropic API is overloaded (529 overloaded_error: Overloaded).",
    });
  });

  it("waits as long as retry-after-ms asks", async () => {
    fake.script([overloaded({ "retry-after-ms": "250" }), answer]);
    const { events } = await ask(providerFor(fake));
    expect(retriesIn(events)[0]).toMatchObject({ delayMs: 250 });
    expect(gapBetweenRequests()).toBeGreaterThanOrEqual(245);
  });

  it("waits as long as retry-after asks, in seconds", async () => {
    fake.script([httpError(429, "rate_limit_error", "Slow down.", { "retry-after": "1" }), answer]);
    const { events } = await ask(providerFor(fake));
    expect(retriesIn(events)[0]).toMatchObject({ delayMs: 1_000 });
    expect(gapBetweenRequests()).toBeGreaterThanOrEqual(995);
  });

  it("abandons a stream that stalls mid-text and retries, discarding the partial text", async () => {
    fake.script([{ kind: "stall", content: [text("This sentence never ends because")] }, answer]);
    const started = performance.now();
    const { events, reply: got } = await ask(providerFor(fake, { idleTimeoutMs: SHORT_IDLE_MS }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(SHORT_IDLE_MS);
    expect(
      textOf(
        events.slice(
          0,
          events.findIndex((event) => event.type === "retry"),
        ),
      ),
    ).toMatch(/^This sentence/);
    expect(retriesIn(events)[0]).toMatchObject({ reason: expect.stringMatching(/sent nothing/) });
    expect(got?.message.content).toEqual([text("The complete answer.")]);
  });

  it("keeps waiting on a stream that only pings, longer than the idle timeout, while the model thinks", async () => {
    fake.script([{ ...answer, pauseMs: 3 * SHORT_IDLE_MS }]);
    const { events, reply: got } = await ask(providerFor(fake, { idleTimeoutMs: SHORT_IDLE_MS }));
    expect(retriesIn(events)).toEqual([]);
    expect(got?.message.content).toEqual([text("The complete answer.")]);
  });

  it("abandons a stream that stalls mid-tool-input and retries", async () => {
    const call = toolUse("toolu_1", "bash", { command: "find . -name '*.ts' | xargs wc -l" });
    fake.script([{ kind: "stall", content: [call] }, reply(call)]);
    const { events, reply: got } = await ask(providerFor(fake, { idleTimeoutMs: SHORT_IDLE_MS }));
    expect(retriesIn(events)).toHaveLength(1);
    expect(got?.message.content).toEqual([call]);
    expect(got?.stopReason).toBe("tool_use");
  });

  it("retries a connection reset mid-stream and returns only the new reply", async () => {
    fake.script([{ kind: "reset", content: [text("Half of a first answer that")] }, answer]);
    const { events, reply: got } = await ask(providerFor(fake));
    expect(retriesIn(events)[0]).toMatchObject({
      reason: expect.stringMatching(/broke before the reply was complete/),
    });
    expect(got?.message.content).toEqual([text("The complete answer.")]);
  });

  it("retries an error event sent inside a 200 stream", async () => {
    const fault = {
      kind: "sse_error" as const,
      content: [text("Starting to answer")],
      errorType: "overloaded_error",
      message: "Overloaded",
    };
    fake.script([fault, answer]);
    const { events, reply: got } = await ask(providerFor(fake));
    expect(retriesIn(events)[0]).toMatchObject({
      reason: "The Anthropic API is overloaded (overloaded_error in the stream: Overloaded).",
    });
    expect(got?.message.content).toEqual([text("The complete answer.")]);
  });

  it("gives up after the last attempt, saying how many it made", async () => {
    fake.script([overloaded(), overloaded(), overloaded(), answer]);
    const { error } = await ask(providerFor(fake, { maxAttempts: 3 }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "server", status: 529 });
    expect(error?.message).toMatch(/overloaded.*Gave up after 3 attempts\.$/);
    expect(fake.requests).toHaveLength(3);
  });

  it("stops at once when the user aborts a stalled stream, without retrying", async () => {
    fake.script([{ kind: "stall", content: [text("Waiting forever")] }, answer]);
    const provider = createAnthropicProvider({
      apiKey: "test-key",
      baseURL: fake.url,
      model: "claude-test-1",
      retryPolicy: { idleTimeoutMs: 30_000 },
    });
    const user = new AbortController();
    setTimeout(() => user.abort(), 150);
    const started = performance.now();
    const { error } = await ask(provider, undefined, user.signal);
    expect(error?.name).toBe("AbortError");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(fake.requests).toHaveLength(1);
  });
});

describe("Anthropic API errors that retrying cannot fix", () => {
  it.each([
    [
      "400 invalid_request_error",
      httpError(400, "invalid_request_error", "max_tokens: must be at most 64000"),
      "invalid_request",
      /^The Anthropic API rejected the request \(400 invalid_request_error: max_tokens: must be at most 64000\)\.$/,
    ],
    [
      "400 prompt is too long",
      httpError(400, "invalid_request_error", "prompt is too long: 208934 tokens > 200000 maximum"),
      "context_too_long",
      /^The conversation is too long for claude-test-1 \(.*prompt is too long.*\)\.$/,
    ],
    [
      "prompt is too long, reported inside a 200 stream",
      {
        kind: "sse_error" as const,
        content: [text("Starting to answer")],
        errorType: "invalid_request_error",
        message: "prompt is too long: 208934 tokens > 200000 maximum",
      },
      "context_too_long",
      /^The conversation is too long for claude-test-1 \(invalid_request_error in the stream: prompt is too long.*\)\.$/,
    ],
    [
      "request_too_large, reported inside a 200 stream",
      {
        kind: "sse_error" as const,
        content: [text("Starting to answer")],
        errorType: "request_too_large",
        message: "Request exceeds the maximum allowed number of bytes.",
      },
      "context_too_long",
      /^The request is too large for the API \(request_too_large in the stream: Request exceeds/,
    ],
    [
      "401 authentication_error",
      httpError(401, "authentication_error", "invalid x-api-key"),
      "authentication",
      /rejected the API key .*; check ANTHROPIC_API_KEY\.$/,
    ],
    [
      "403 permission_error",
      httpError(403, "permission_error", "Your API key does not have permission."),
      "authentication",
      /refused access .*ANTHROPIC_API_KEY may use claude-test-1\.$/,
    ],
    [
      "404 not_found_error for the model",
      httpError(404, "not_found_error", "model: claude-test-1"),
      "model_not_found",
      /^The model "claude-test-1" was not found at http:\/\/127\.0\.0\.1:\d+ .*; choose another with --model or MODEL_ID\.$/,
    ],
  ])("does not retry %s and explains it in one sentence", async (_name, fault, kind, sentence) => {
    fake.script([fault, answer]);
    const { error, events } = await ask(providerFor(fake));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind });
    expect(error?.message).toMatch(sentence);
    expect(retriesIn(events)).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it("says a server that refuses connections is unreachable, naming its URL", async () => {
    const port = await closedPort();
    const provider = createAnthropicProvider({
      apiKey: "test-key",
      baseURL: `http://127.0.0.1:${port}`,
      model: "claude-test-1",
      retryPolicy: fastRetries,
    });
    const { error, events } = await ask(provider);
    expect(error).toMatchObject({ kind: "unreachable" });
    expect(error?.message).toBe(
      `Cannot reach the Anthropic API at http://127.0.0.1:${port} (ECONNREFUSED); check ANTHROPIC_BASE_URL or --base-url.`,
    );
    expect(retriesIn(events)).toEqual([]);
  });
});

import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ProviderError } from "../src/core/errors.js";
import { emptyUsage } from "../src/core/messages.js";
import type { ModelReply, StreamEvent } from "../src/providers/provider.js";
import {
  type Attempt,
  type RetryDecision,
  type RetryOptions,
  retryAfterMs,
  withRetries,
} from "../src/providers/retry.js";

const replyWith = (text: string): ModelReply => ({
  message: { role: "assistant", content: [{ type: "text", text }] },
  stopReason: "end_turn",
  rawStopReason: "end_turn",
  usage: emptyUsage(),
});

const retryable = (message = "The server failed."): RetryDecision => ({
  retry: true,
  error: new ProviderError("server", message, 500),
});

class Flaky extends Error {}

/** Attempt n runs steps[n]: it streams its text, then fails or answers. */
function attempts(...steps: { text?: string; fail?: boolean; hang?: boolean }[]) {
  const signals: AbortSignal[] = [];
  const attempt: Attempt = async function* (signal) {
    const step = steps[signals.length];
    signals.push(signal);
    if (!step) throw new Error("no more attempts scripted");
    if (step.text) yield { type: "text_delta", text: step.text };
    // Hangs without looking at its signal: the retry layer must leave it behind by itself.
    if (step.hang) await new Promise(() => {});
    if (step.fail) throw new Flaky("broken");
    return replyWith(step.text ?? "");
  };
  return { attempt, signals };
}

async function drain(
  attempt: Attempt,
  options: Partial<RetryOptions> & { onEvent?: (event: StreamEvent) => Promise<void> },
) {
  const events: StreamEvent[] = [];
  const stream = withRetries(attempt, {
    signal: new AbortController().signal,
    classify: () => retryable(),
    ...options,
    policy: { initialDelayMs: 1, idleTimeoutMs: 5_000, ...options.policy },
  });
  while (true) {
    const step = await stream.next();
    if (step.done) return { reply: step.value, events };
    events.push(step.value);
    await options.onEvent?.(step.value);
  }
}

const retries = (events: StreamEvent[]) => events.filter((event) => event.type === "retry");

describe("withRetries", () => {
  it("passes the events of a good attempt through and returns its reply", async () => {
    const { attempt } = attempts({ text: "hello" });
    const { reply, events } = await drain(attempt, {});
    expect(events).toEqual([{ type: "text_delta", text: "hello" }]);
    expect(reply).toEqual(replyWith("hello"));
  });

  it("retries a retryable failure and returns only the complete attempt's reply", async () => {
    const { attempt } = attempts({ text: "partial", fail: true }, { text: "whole answer" });
    const { reply, events } = await drain(attempt, {});
    expect(events.map((event) => event.type)).toEqual(["text_delta", "retry", "text_delta"]);
    expect(retries(events)[0]).toMatchObject({ attempt: 2, reason: "The server failed." });
    expect(reply.message.content).toEqual([{ type: "text", text: "whole answer" }]);
  });

  it("gives the classifier the attempt's own error", async () => {
    const seen: unknown[] = [];
    const { attempt } = attempts({ fail: true }, {});
    const classify = (error: unknown) => {
      seen.push(error);
      return retryable();
    };
    await drain(attempt, { classify });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(Flaky);
  });

  it("throws a final error at once, without retrying", async () => {
    const { attempt, signals } = attempts({ fail: true }, {});
    const final = new ProviderError("authentication", "The key was rejected.", 401);
    const run = drain(attempt, { classify: () => ({ retry: false, error: final }) });
    await expect(run).rejects.toBe(final);
    expect(signals).toHaveLength(1);
  });

  it("lets a classifier rethrow a bug instead of deciding", async () => {
    const { attempt } = attempts({ fail: true });
    const run = drain(attempt, {
      classify: (error) => {
        throw error;
      },
    });
    await expect(run).rejects.toBeInstanceOf(Flaky);
  });

  it("stops after maxAttempts and says how many it made", async () => {
    const { attempt, signals } = attempts(...Array(5).fill({ fail: true }));
    const run = drain(attempt, { policy: { maxAttempts: 3 } });
    await expect(run).rejects.toThrow("The server failed. Gave up after 3 attempts.");
    await expect(run).rejects.toMatchObject({ kind: "server", status: 500 });
    expect(signals).toHaveLength(3);
  });

  it("backs off exponentially, with jitter taking at most half of each wait", async () => {
    const policy = { initialDelayMs: 4, maxDelayMs: 20, maxAttempts: 5 };
    const delays = async (random: () => number) => {
      const { attempt } = attempts(
        { fail: true },
        { fail: true },
        { fail: true },
        { fail: true },
        {},
      );
      const { events } = await drain(attempt, { policy, random });
      return retries(events).map((event) => event.type === "retry" && event.delayMs);
    };
    expect(await delays(() => 0.999_999)).toEqual([4, 8, 16, 20]);
    expect(await delays(() => 0)).toEqual([2, 4, 8, 10]);
  });

  it("waits as long as the server asks instead of backing off", async () => {
    const { attempt } = attempts({ fail: true }, {});
    const started = performance.now();
    const { events } = await drain(attempt, {
      classify: () => ({ ...retryable(), retryAfterMs: 150 }),
    });
    expect(retries(events)[0]).toMatchObject({ delayMs: 150 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it("gives up instead of waiting past maxTotalDelayMs", async () => {
    const { attempt, signals } = attempts({ fail: true }, {});
    const run = drain(attempt, {
      policy: { maxTotalDelayMs: 1_000 },
      classify: () => ({ ...retryable(), retryAfterMs: 60_000 }),
    });
    await expect(run).rejects.toMatchObject({ kind: "server" });
    expect(signals).toHaveLength(1);
  });

  it("abandons an attempt that sends nothing for idleTimeoutMs and tries again", async () => {
    const { attempt, signals } = attempts({ text: "begin", hang: true }, { text: "again" });
    const { reply, events } = await drain(attempt, { policy: { idleTimeoutMs: 150 } });
    expect(retries(events)[0]).toMatchObject({
      attempt: 2,
      reason: "The model's stream sent nothing for 0.15 s, so it was abandoned.",
    });
    expect(signals[0]?.aborted).toBe(true);
    expect(reply).toEqual(replyWith("again"));
  });

  it("keeps waiting on a slow attempt that reports progress with alive()", async () => {
    let calls = 0;
    const attempt: Attempt = async function* (_signal, alive) {
      calls += 1;
      for (let i = 0; i < 6; i += 1) {
        await sleep(50);
        alive();
      }
      yield { type: "text_delta", text: "slow but steady" };
      return replyWith("slow but steady");
    };
    const { reply } = await drain(attempt, { policy: { idleTimeoutMs: 150 } });
    expect(reply).toEqual(replyWith("slow but steady"));
    expect(calls).toBe(1);
  });

  it("does not count the consumer's time against the idle timeout", async () => {
    const { attempt, signals } = attempts({ text: "take your time" });
    const { events } = await drain(attempt, {
      policy: { idleTimeoutMs: 100 },
      onEvent: () => sleep(300),
    });
    expect(retries(events)).toEqual([]);
    expect(signals).toHaveLength(1);
  });

  it("stops a running attempt at once when the user aborts, and does not retry", async () => {
    const user = new AbortController();
    const { attempt, signals } = attempts({ text: "working", hang: true }, {});
    let classified = false;
    setTimeout(() => user.abort(), 50);
    const run = drain(attempt, {
      signal: user.signal,
      classify: () => {
        classified = true;
        return retryable();
      },
    });
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
    expect(classified).toBe(false);
  });

  it("cuts a backoff wait short when the user aborts", async () => {
    const user = new AbortController();
    const { attempt, signals } = attempts({ fail: true }, {});
    const started = performance.now();
    const run = drain(attempt, {
      signal: user.signal,
      classify: () => ({ ...retryable(), retryAfterMs: 10_000 }),
      onEvent: async (event) => {
        if (event.type === "retry") setTimeout(() => user.abort(), 20);
      },
    });
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(signals).toHaveLength(1);
  });

  it("does not start when the user has already aborted", async () => {
    const user = new AbortController();
    user.abort();
    const { attempt } = attempts({ text: "never" });
    await expect(drain(attempt, { signal: user.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });
});

describe("retryAfterMs", () => {
  const headers = (values: Record<string, string>) => new Headers(values);
  const now = Date.parse("2026-01-01T00:00:00Z");

  it.each([
    ["retry-after-ms in milliseconds", { "retry-after-ms": "250" }, 250],
    ["retry-after in seconds", { "retry-after": "3" }, 3_000],
    ["retry-after in fractional seconds", { "retry-after": "0.5" }, 500],
    ["retry-after as an HTTP date", { "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" }, 7_000],
    ["a date already past as no wait", { "retry-after": "Wed, 31 Dec 2025 23:00:00 GMT" }, 0],
    ["retry-after-ms before retry-after", { "retry-after-ms": "20", "retry-after": "9" }, 20],
    ["nothing for garbage", { "retry-after": "soon" }, undefined],
    ["nothing for a negative wait", { "retry-after": "-4" }, undefined],
    ["nothing without the headers", {}, undefined],
  ])("reads %s", (_name, values, expected) => {
    expect(retryAfterMs(headers(values), now)).toBe(expected);
  });
});

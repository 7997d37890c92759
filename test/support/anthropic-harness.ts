// Runs the real Anthropic provider (through the SDK, over HTTP) against the fake server, with
// retry timings small enough for tests. The idle timeout stays generous unless a test is about
// stalls: on a loaded machine a worker's first request alone can take a few hundred ms.

import type { Message } from "../../src/core/messages.js";
import { createAnthropicProvider } from "../../src/providers/anthropic.js";
import type { ModelReply, Provider, StreamEvent } from "../../src/providers/provider.js";
import type { RetryPolicy } from "../../src/providers/retry.js";
import type { ThinkingOptions } from "../../src/providers/thinking-options.js";
import type { FakeAnthropic } from "./fake-anthropic-server.js";

export const fastRetries: Partial<RetryPolicy> = {
  initialDelayMs: 5,
  maxDelayMs: 20,
  idleTimeoutMs: 5_000,
};

/** The idle timeout for tests about stalls. */
export const SHORT_IDLE_MS = 400;

export function providerFor(
  fake: FakeAnthropic,
  options: {
    model?: string;
    onRepair?: (repair: string) => void;
    maxAttempts?: number;
    idleTimeoutMs?: number;
    thinking?: ThinkingOptions;
    onNotice?: (sentence: string) => void;
  } = {},
): Provider {
  return createAnthropicProvider({
    apiKey: "test-key",
    baseURL: fake.url,
    model: options.model ?? "claude-test-1",
    retryPolicy: {
      ...fastRetries,
      maxAttempts: options.maxAttempts ?? 6,
      idleTimeoutMs: options.idleTimeoutMs ?? fastRetries.idleTimeoutMs,
    },
    onRepair: options.onRepair,
    onNotice: options.onNotice,
    thinking: options.thinking,
  });
}

export const bashTool = {
  name: "bash",
  description: "Run a shell command.",
  input_schema: { type: "object" as const, properties: { command: { type: "string" } } },
};

export interface Outcome {
  events: StreamEvent[];
  reply?: ModelReply;
  error?: Error;
}

/** Streams one request to the end and keeps whatever came out: events, a reply or an error. */
export async function ask(
  provider: Provider,
  messages: Message[] = [{ role: "user", content: "hello" }],
  signal = new AbortController().signal,
): Promise<Outcome> {
  const events: StreamEvent[] = [];
  const stream = provider.stream({
    system: "You are a test.",
    messages,
    tools: [bashTool],
    signal,
  });
  try {
    while (true) {
      const step = await stream.next();
      if (step.done) return { events, reply: step.value };
      events.push(step.value);
    }
  } catch (error) {
    return { events, error: error as Error };
  }
}

export const textOf = (events: StreamEvent[]) =>
  events.map((event) => (event.type === "text_delta" ? event.text : "")).join("");

export const retriesIn = (events: StreamEvent[]) =>
  events.filter((event) => event.type === "retry");

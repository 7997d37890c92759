// What the Anthropic provider adds to every request, measured against the local fake server:
// transcript repair over a long session, and a whole streamed round trip through the SDK.
//
//   npx tsx bench/anthropic-provider.ts

import type { Message } from "../src/core/messages.js";
import { createAnthropicProvider } from "../src/providers/anthropic.js";
import { prepareForRequest } from "../src/transcript/repair.js";
import { reply, startFakeAnthropic, text } from "../test/support/fake-anthropic-server.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

/** A valid session of `rounds` tool round trips: the common case, where nothing needs repair. */
function longSession(rounds: number): Message[] {
  const messages: Message[] = [{ role: "user", content: "start" }];
  for (let i = 0; i < rounds; i += 1) {
    const id = `toolu_${i}`;
    messages.push({
      role: "assistant",
      content: [
        { type: "text", text: `Step ${i}.` },
        { type: "tool_use", id, name: "bash", input: { command: `echo ${i}` } },
      ],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: id, content: `${i}\n`.repeat(20) }],
    });
  }
  return messages;
}

export async function anthropicProviderFigures(): Promise<Figure[]> {
  const session = longSession(1_000);
  const repairTimes: number[] = [];
  for (let i = 0; i < 50; i += 1) {
    const started = performance.now();
    prepareForRequest(session);
    repairTimes.push(performance.now() - started);
  }

  const fake = await startFakeAnthropic();
  fake.script([reply(text("A short answer from the fake server."))], { cycle: true });
  const provider = createAnthropicProvider({ apiKey: "bench", baseURL: fake.url, model: "bench" });
  const firstText: number[] = [];
  const whole: number[] = [];
  try {
    for (let i = 0; i < 100; i += 1) {
      const started = performance.now();
      const stream = provider.stream({
        system: "bench",
        messages: [{ role: "user", content: `question ${i}` }],
        tools: [],
        signal: new AbortController().signal,
      });
      let first: number | undefined;
      while (!(await stream.next()).done) first ??= performance.now() - started;
      firstText.push(first ?? Number.NaN);
      whole.push(performance.now() - started);
    }
  } finally {
    await fake.close();
  }
  return [
    {
      name: "prepareForRequest, 2,001 messages (valid)",
      value: median(repairTimes),
      unit: "ms",
      target: 5,
    },
    {
      name: "round trip to first text delta (local fake)",
      value: median(firstText.slice(10)),
      unit: "ms",
      target: 20,
    },
    {
      name: "whole streamed round trip (local fake)",
      value: median(whole.slice(10)),
      unit: "ms",
      target: 25,
    },
  ];
}

export const anthropicProviderBenchmark: Benchmark = {
  title: "Anthropic provider (SDK against the local fake)",
  figures: anthropicProviderFigures,
};

await runIfMain(anthropicProviderBenchmark, import.meta.url);

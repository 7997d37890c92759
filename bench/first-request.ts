// How many bytes agentloop sends before the model has read a word of the task: the first
// request of the built CLI in a fresh, empty directory (no AGENTS.md), as the fake Anthropic
// server receives it. Every later request of the session repeats the system prompt and tools.
//
//   npm run build && npx tsx bench/first-request.ts

import { reply, startFakeAnthropic, text } from "../test/support/fake-anthropic-server.js";
import { CLI, startAgainstFake } from "./cli-process.js";
import { type Benchmark, type Figure, runIfMain } from "./report.js";

const TASK = "Say hello.";

export async function firstRequestFigures(): Promise<Figure[]> {
  const fake = await startFakeAnthropic();
  try {
    fake.script([reply(text("Hello."))]);
    const run = startAgainstFake(CLI, ["-p", TASK], fake);
    run.child.stdout.resume();
    await run.exited;
    const first = fake.requests[0];
    if (!first) throw new Error("agentloop exited without sending a request.");
    const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null));
    // What the user typed and the JSON around it is the rest of the body.
    const fixedPart = bytes(first.body.system) + bytes(first.body.tools);
    return [
      // About 750 tokens at ~4 bytes a token, with bash and the three file tools: a fraction
      // of what the task and the first tool results take, and paid again (from the cache, at a
      // tenth of the price) on every turn.
      {
        name: "first request: system prompt + tool definitions",
        value: fixedPart,
        unit: "B",
        target: 3_072,
      },
      {
        name: `first request: whole body (task "${TASK}")`,
        value: Number(first.headers["content-length"] ?? bytes(first.body)),
        unit: "B",
        target: 4_096,
      },
    ];
  } finally {
    await fake.close();
  }
}

export const firstRequestBenchmark: Benchmark = {
  title: "First request, fresh empty directory",
  figures: firstRequestFigures,
};

await runIfMain(firstRequestBenchmark, import.meta.url);

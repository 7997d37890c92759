// A long task against a 200,000-token window: 70 commands, each printing about 25 KB, through
// the built CLI and the fake Anthropic server (which refuses over-long requests as the API
// does and models its prompt cache). What compaction costs and saves: bytes uploaded, the
// largest request against the window, how much input the prompt cache served, and the loop's
// own time spent compacting.
//
//   npm run build && npx tsx bench/compaction.ts

import { costOf } from "../src/session/cost.js";
import {
  type FakeTurn,
  reply,
  startFakeAnthropic,
  text,
  toolUse,
} from "../test/support/fake-anthropic-server.js";
import { CLI, startAgainstFake } from "./cli-process.js";
import { type Benchmark, type Figure, runIfMain } from "./report.js";

const COMMANDS = 70;
const WINDOW = 200_000;

function noisyTask(): FakeTurn[] {
  const turns: FakeTurn[] = [];
  for (let k = 1; k <= COMMANDS; k += 1) {
    const command = `yes "build log line of step ${k}: compiling the module and linking it" | head -c 25000`;
    turns.push(reply(toolUse(`toolu_${k}`, "bash", { command })));
  }
  turns.push(reply(text("All steps are built.")));
  return turns;
}

export async function compactionFigures(): Promise<Figure[]> {
  const fake = await startFakeAnthropic({ contextWindow: WINDOW });
  try {
    fake.script(noisyTask());
    const args = ["-p", "build every step", "--output-format", "stream-json"];
    const run = startAgainstFake(CLI, [...args, "--permission-mode", "yolo"], fake);
    let output = "";
    run.child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    await run.exited;
    const events = output
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; kind?: string; durationMs?: number });
    const compactions = events.filter((event) => event.type === "compaction");
    const compactingMs = compactions
      .filter((event) => event.kind === "clear")
      .reduce((sum, event) => sum + (event.durationMs ?? 0), 0);
    const accepted = fake.requests.filter((request) => request.status === 200);
    const refused = fake.requests.length - accepted.length;
    const uploaded = fake.requests.reduce((sum, request) => sum + request.bytesReceived, 0);
    const largest = Math.max(...accepted.map((request) => request.tokens ?? 0));
    let read = 0;
    let all = 0;
    let costUsd = 0;
    for (const { usage } of accepted) {
      if (!usage) continue;
      read += usage.cache_read_input_tokens;
      all += usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
      costUsd += costOf("claude-sonnet-4-6", { ...usage, output_tokens: 0 }) ?? 0;
    }
    return [
      { name: "requests refused as too long", value: refused, unit: "", target: 0 },
      // Half of the 30 MB the best other agent we measured sends for this task.
      { name: "bytes uploaded in all", value: uploaded / 1e6, unit: "MB", target: 15 },
      {
        name: "largest request, share of the window",
        value: (100 * largest) / WINDOW,
        unit: "%",
        target: 85,
      },
      // At odds with the bytes target: 70 outputs of ~6,300 tokens are new to any cache, so 90%
      // cache reads need ten times as much sent, about 17.7 MB. docs/development.md weighs the two.
      {
        name: "input tokens not read from the prompt cache",
        value: 100 - (100 * read) / all,
        unit: "%",
        target: 10,
      },
      { name: "loop's own time compacting, in all", value: compactingMs, unit: "ms", target: 100 },
      { name: "input cost at Claude Sonnet prices", value: costUsd, unit: "USD", target: null },
      { name: "compactions", value: compactions.length, unit: "", target: null },
      { name: "requests", value: accepted.length, unit: "", target: null },
    ];
  } finally {
    await fake.close();
  }
}

export const compactionBenchmark: Benchmark = {
  title: `Compaction: ${COMMANDS} commands of 25 KB under a ${WINDOW.toLocaleString("en-US")}-token window`,
  figures: compactionFigures,
};

await runIfMain(compactionBenchmark, import.meta.url);

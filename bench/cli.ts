// The built CLI as users run it, spawned as a subprocess against the fake Anthropic server on
// 127.0.0.1: how soon its first request arrives, how long it takes from a tool result to the
// next request once running, and how much memory a 100-turn session needs.
//
//   npm run build && npx tsx bench/cli.ts

import { createInterface } from "node:readline";
import {
  type FakeAnthropic,
  reply,
  startFakeAnthropic,
  text,
  toolUse,
} from "../test/support/fake-anthropic-server.js";
import { BARE_FETCH, CLI, peakRssMb, startAgainstFake } from "./cli-process.js";
import { type Benchmark, type Figure, median, percentile, runIfMain } from "./report.js";

const STARTS = 10;
const SESSION_TURNS = 100;
/** Gaps before this turn include one-time work (JIT warm-up, first sandbox start). */
const STEADY_FROM_TURN = 10;

/** One-shot runs default to auto: every command in bubblewrap, checked before the first request. */
const DEFAULT_MODE = "auto";
const OTHER_MODE = "yolo";

export async function cliFigures(): Promise<Figure[]> {
  const fake = await startFakeAnthropic();
  try {
    return [
      ...(await startupFigures(fake)),
      ...(await sessionFigures(fake, DEFAULT_MODE)),
      ...(await sessionFigures(fake, OTHER_MODE)),
    ];
  } finally {
    await fake.close();
  }
}

async function startupFigures(fake: FakeAnthropic): Promise<Figure[]> {
  const oneShot = (mode: string) => [CLI, "-p", "Say hello.", "--permission-mode", mode];
  const contenders = {
    [DEFAULT_MODE]: oneShot(DEFAULT_MODE),
    [OTHER_MODE]: oneShot(OTHER_MODE),
    bare: [BARE_FETCH, "Say hello."],
  };
  const times: Record<string, number[]> = { [DEFAULT_MODE]: [], [OTHER_MODE]: [], bare: [] };
  // Interleaved, so that a busy machine slows every contender alike; round 0 warms the caches.
  for (let round = 0; round <= STARTS; round += 1) {
    for (const [name, [script, ...args]] of Object.entries(contenders)) {
      const ms = await timeToFirstRequest(fake, script as string, args);
      if (round > 0) times[name]?.push(ms);
    }
  }
  return [
    {
      name: `spawn to first request, one-shot default (${DEFAULT_MODE}), median`,
      value: median(times[DEFAULT_MODE] ?? []),
      unit: "ms",
      target: 90,
    },
    {
      name: `spawn to first request, --permission-mode ${OTHER_MODE}, median`,
      value: median(times[OTHER_MODE] ?? []),
      unit: "ms",
      target: null,
    },
    {
      name: "spawn to first request, bare Node fetch script, median",
      value: median(times.bare ?? []),
      unit: "ms",
      target: null,
    },
  ];
}

async function timeToFirstRequest(
  fake: FakeAnthropic,
  script: string,
  args: string[],
): Promise<number> {
  fake.script([reply(text("Hello."))]);
  const before = fake.requests.length;
  const run = startAgainstFake(script, args, fake);
  run.child.stdout.resume();
  await run.exited;
  const first = fake.requests[before];
  if (!first) throw new Error(`${script} exited without sending a request.`);
  return first.receivedAt - run.startedAt;
}

/**
 * A session of SESSION_TURNS model turns, each but the last running a trivial command. The
 * stream-json `tool_end` line and the fake's `receivedAt` of the next request are both read in
 * this process, so their difference is the CLI's own work between a result and the request.
 */
async function sessionFigures(fake: FakeAnthropic, mode: string): Promise<Figure[]> {
  // Commands differ so that the repeated-call guard does not stop the session.
  const calls = Array.from({ length: SESSION_TURNS - 1 }, (_, i) =>
    reply(toolUse(`toolu_${i}`, "bash", { command: `true ${i}` })),
  );
  fake.script([...calls, reply(text("Ran them all."))]);
  const before = fake.requests.length;
  const args = ["-p", "Run true 99 times.", "--permission-mode", mode];
  const run = startAgainstFake(CLI, [...args, "--output-format", "stream-json"], fake);
  const toolEnds: number[] = [];
  let peakMb = 0;
  createInterface({ input: run.child.stdout }).on("line", (line) => {
    const at = performance.now();
    const type = (JSON.parse(line) as { type: string }).type;
    if (type === "tool_end") toolEnds.push(at);
    if (type === "tool_end" || type === "result") {
      peakMb = Math.max(peakMb, peakRssMb(run.child.pid as number) ?? 0);
    }
  });
  await run.exited;
  const requests = fake.requests.slice(before);
  if (peakMb === 0) throw new Error(`Could not read the CLI's memory from /proc/<pid>/status.`);
  if (requests.length !== SESSION_TURNS || toolEnds.length !== SESSION_TURNS - 1) {
    throw new Error(
      `The ${mode} session made ${requests.length} requests and ${toolEnds.length} tool calls.`,
    );
  }
  const gaps = toolEnds
    .map((at, turn) => (requests[turn + 1]?.receivedAt ?? Number.NaN) - at)
    .slice(STEADY_FROM_TURN);
  const judged = mode === DEFAULT_MODE;
  return [
    {
      name: `tool result to next request, ${mode}, median`,
      value: median(gaps),
      unit: "ms",
      target: judged ? 2 : null,
    },
    // The tail follows the machine's load, so it is shown, not judged.
    {
      name: `tool result to next request, ${mode}, p95`,
      value: percentile(gaps, 0.95),
      unit: "ms",
      target: null,
    },
    {
      name: `peak RSS over a ${SESSION_TURNS}-turn session, ${mode}`,
      value: peakMb,
      unit: "MB",
      target: judged ? 85 : null,
    },
  ];
}

export const cliBenchmark: Benchmark = {
  title: "The built CLI against the fake Anthropic server",
  figures: cliFigures,
};

await runIfMain(cliBenchmark, import.meta.url);

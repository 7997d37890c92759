// OpenAI's two protocols side by side, through the built CLI against the fake OpenAI server in
// the same run: how soon the first request arrives, and how long a turn takes from one request
// to the next (a trivial command included), on Responses (the openai preset's default) and on
// Chat Completions (--api chat). Responses' events are more and wordier than Chat chunks, and
// each request carries the reasoning items back; neither may cost a user more than a tenth.
//
//   npm run build && npx tsx bench/openai-protocols.ts

import { type FakeOpenAI, startFakeOpenAI } from "../test/support/fake-openai-server.js";
import { bash, text } from "../test/support/scripted-provider.js";
import { CLI, startWithEnv } from "./cli-process.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

const STARTS = 8;
const SESSION_TURNS = 40;
/** Gaps before this turn include one-time work (JIT warm-up). */
const STEADY_FROM_TURN = 10;
const SESSION_ROUNDS = 2;
/** What Responses may add to Chat Completions, per the issue. */
const RATIO = 1.1;

const PROTOCOLS = {
  responses: ["--provider", "openai", "--model", "gpt-6.1-sol"],
  chat: ["--provider", "openai", "--api", "chat", "--model", "gpt-5"],
};
type Protocol = keyof typeof PROTOCOLS;

export async function openAIProtocolFigures(): Promise<Figure[]> {
  const fake = await startFakeOpenAI();
  try {
    const starts: Record<Protocol, number[]> = { responses: [], chat: [] };
    const gaps: Record<Protocol, number[]> = { responses: [], chat: [] };
    // Interleaved, so that a busy machine slows both alike; round 0 warms the caches.
    for (let round = 0; round <= STARTS; round += 1) {
      for (const protocol of ["chat", "responses"] as Protocol[]) {
        const ms = await timeToFirstRequest(fake, protocol);
        if (round > 0) starts[protocol].push(ms);
      }
    }
    for (let round = 0; round < SESSION_ROUNDS; round += 1) {
      for (const protocol of ["chat", "responses"] as Protocol[]) {
        gaps[protocol].push(...(await sessionGaps(fake, protocol)));
      }
    }
    const chatStart = median(starts.chat);
    const chatGap = median(gaps.chat);
    return [
      {
        name: "spawn to first request, Chat Completions, median",
        value: chatStart,
        unit: "ms",
        target: null,
      },
      {
        name: "spawn to first request, Responses, median",
        value: median(starts.responses),
        unit: "ms",
        target: chatStart * RATIO,
      },
      { name: "turn gap, Chat Completions, median", value: chatGap, unit: "ms", target: null },
      {
        name: "turn gap, Responses, median",
        value: median(gaps.responses),
        unit: "ms",
        target: chatGap * RATIO,
      },
    ];
  } finally {
    await fake.close();
  }
}

function start(fake: FakeOpenAI, protocol: Protocol, args: string[]) {
  const env = { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: fake.url };
  const run = startWithEnv(
    CLI,
    [...PROTOCOLS[protocol], "--permission-mode", "yolo", ...args],
    env,
  );
  run.child.stdout.resume();
  return run;
}

async function timeToFirstRequest(fake: FakeOpenAI, protocol: Protocol): Promise<number> {
  fake.script([{ kind: "reply", content: [text("Hello.")] }]);
  const before = fake.requests.length;
  const run = start(fake, protocol, ["-p", "Say hello."]);
  await run.exited;
  const first = fake.requests[before];
  if (!first) throw new Error(`agentloop on ${protocol} exited without sending a request.`);
  return first.receivedAt - run.startedAt;
}

/** A session of SESSION_TURNS turns, each but the last running a trivial command. */
async function sessionGaps(fake: FakeOpenAI, protocol: Protocol): Promise<number[]> {
  // Commands differ so that the repeated-call guard does not stop the session.
  const calls = Array.from({ length: SESSION_TURNS - 1 }, (_, i) => ({
    kind: "reply" as const,
    content: [bash(`call_${i}`, `true ${i}`)],
  }));
  fake.script([...calls, { kind: "reply", content: [text("Ran them all.")] }]);
  const before = fake.requests.length;
  const run = start(fake, protocol, ["-p", `Run true ${SESSION_TURNS - 1} times.`]);
  await run.exited;
  const requests = fake.requests.slice(before);
  if (requests.length !== SESSION_TURNS || requests.some((request) => request.status !== 200)) {
    throw new Error(`agentloop on ${protocol} made ${requests.length} requests, not all accepted.`);
  }
  const times = requests.map((request) => request.receivedAt);
  return times
    .slice(1)
    .map((at, turn) => at - (times[turn] as number))
    .slice(STEADY_FROM_TURN);
}

export const openAIProtocolsBenchmark: Benchmark = {
  title: "OpenAI's two protocols through the built CLI against the fake OpenAI server",
  figures: openAIProtocolFigures,
};

await runIfMain(openAIProtocolsBenchmark, import.meta.url);

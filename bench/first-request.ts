// How many bytes agentloop sends before the model has read a word of the task: the first
// request of the built CLI in a fresh, empty directory (no AGENTS.md), as the fake Anthropic
// server receives it, and in a git repository with one skill (its catalog line and the skill
// tool). Every later request of the session repeats the system prompt and tools.
//
//   npm run build && npx tsx bench/first-request.ts

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reply, startFakeAnthropic, text } from "../test/support/fake-anthropic-server.js";
import { CLI, startAgainstFake } from "./cli-process.js";
import { type Benchmark, type Figure, runIfMain } from "./report.js";

const TASK = "Say hello.";
/** The bytes web_fetch's definition adds to the tools, measured when it became a default. */
/** " (not its .git)" in auto mode's line of the environment section, in a git repository. */
const READ_ONLY_GIT_NOTE = 15;
const WEB_FETCH_DEFINITION = 734;

export async function firstRequestFigures(): Promise<Figure[]> {
  const fake = await startFakeAnthropic();
  try {
    const first = await firstRequest(fake, []);
    const withSkill = await inRepositoryWithSkill((cwd) => firstRequest(fake, ["--cwd", cwd]));
    // What the user typed and the JSON around it is the rest of the body.
    const fixedPart = bytes(first.body.system) + bytes(first.body.tools);
    return [
      // About 1,050 tokens at ~4 bytes a token: bash (and its run_in_background), the three
      // file tools, the agent tool with the two built-in agents, and the environment section; a
      // fraction of what the task and the first tool results take, and paid again (from the
      // cache, at a tenth of the price) on every turn. It was 3,345 B before the agent tool was
      // offered by default (issue 46), which adds some 850 B; the target keeps 150 B of room.
      // web_fetch joined a hosted model's default set (issue 54): each target was raised by its
      // definition's measured size, 734 B (733 B and a comma), and by nothing else. In a git
      // repository, auto mode's line says the sandbox keeps .git read-only (issue 51): 15 B.
      {
        name: "first request: system prompt + tool definitions",
        value: fixedPart,
        unit: "B",
        target: 4_352 + WEB_FETCH_DEFINITION,
      },
      {
        name: `first request: whole body (task "${TASK}")`,
        value: Number(first.headers["content-length"] ?? bytes(first.body)),
        unit: "B",
        target: 4_608 + WEB_FETCH_DEFINITION,
      },
      {
        name: "first request in a git repository with one skill: whole body",
        value: Number(withSkill.headers["content-length"] ?? bytes(withSkill.body)),
        unit: "B",
        target: 5_120 + WEB_FETCH_DEFINITION + READ_ONLY_GIT_NOTE,
      },
    ];
  } finally {
    await fake.close();
  }
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null));

async function firstRequest(fake: Awaited<ReturnType<typeof startFakeAnthropic>>, args: string[]) {
  const before = fake.requests.length;
  fake.script([reply(text("Hello."))]);
  const run = startAgainstFake(CLI, [...args, "-p", TASK], fake);
  run.child.stdout.resume();
  await run.exited;
  const first = fake.requests[before];
  if (!first) throw new Error("agentloop exited without sending a request.");
  return first;
}

/** A directory that is a git repository on a branch, with one skill of a usual size. */
async function inRepositoryWithSkill<T>(work: (cwd: string) => Promise<T>): Promise<T> {
  const cwd = mkdtempSync(join(tmpdir(), "agentloop-bench-"));
  try {
    mkdirSync(join(cwd, ".git"));
    writeFileSync(join(cwd, ".git", "HEAD"), "ref: refs/heads/main\n");
    mkdirSync(join(cwd, ".agentloop", "skills", "release"), { recursive: true });
    writeFileSync(
      join(cwd, ".agentloop", "skills", "release", "SKILL.md"),
      "---\nname: release\ndescription: Prepare a release: bump the version, update CHANGELOG.md, tag it\n---\nSteps.\n",
    );
    return await work(cwd);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

export const firstRequestBenchmark: Benchmark = {
  title: "First request: a fresh empty directory, and a git repository with a skill",
  figures: firstRequestFigures,
};

await runIfMain(firstRequestBenchmark, import.meta.url);

// `agentloop batch` against the fake model: what the runner itself adds to each task (a clone,
// two snapshots and a diff, a process, a result file) beside plain one-shot runs of the same
// agent, and how close N workers come to N times one worker when the model is slow.
//
//   npm run build && npx tsx bench/batch.ts

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskResult } from "../src/batch/task-result.js";
import { batchPrompt, startBatchModel } from "../test/support/batch-model.js";
import { CLI, freshSandbox, runCli } from "../test/support/cli-harness.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

const OVERHEAD_TASKS = 10;
const THROUGHPUT_TASKS = 16;
const WORKERS = 4;
/** The model's thinking time per reply; each task takes two replies. */
const LATENCY_MS = 400;

export async function batchFigures(): Promise<Figure[]> {
  const place = freshSandbox();
  try {
    return [...(await overheadFigures(place)), ...(await throughputFigures(place))];
  } finally {
    rmSync(join(place.home, ".."), { recursive: true, force: true });
  }
}

type Place = ReturnType<typeof freshSandbox>;

async function overheadFigures(place: Place): Promise<Figure[]> {
  const model = await startBatchModel();
  try {
    const repo = fixtureRepository(place);
    const env = agentEnv(place, model.url);
    const tasks = Array.from({ length: OVERHEAD_TASKS }, (_, index) => ({
      id: `t${index}`,
      prompt: batchPrompt(`t${index}`, "true"),
      repo,
    }));
    // The same agent runs, one after the other, without the runner around them.
    const oneShot: number[] = [];
    for (const task of tasks) {
      const started = performance.now();
      const run = await runCli(["-p", task.prompt, "--permission-mode", "yolo"], {
        env,
        cwd: place.workspace,
      });
      if (run.code !== 0) throw new Error(`one-shot run failed: ${run.stderr}`);
      oneShot.push(performance.now() - started);
    }
    const results = await runBatch(place, "overhead", tasks, env, ["--workers", "1"]);
    const perTask = median(results.map((result) => result.duration_ms));
    const bare = median(oneShot);
    return [
      {
        name: "one-shot agent run (2 turns, one bash call), median",
        value: bare,
        unit: "ms",
        target: null,
      },
      {
        name: "the same task under batch run, median",
        value: perTask,
        unit: "ms",
        target: null,
      },
      {
        name: "runner overhead per task (clone, snapshots, diff, result)",
        value: perTask - bare,
        unit: "ms",
        target: 150,
      },
    ];
  } finally {
    await model.close();
  }
}

async function throughputFigures(place: Place): Promise<Figure[]> {
  const model = await startBatchModel({ latencyMs: LATENCY_MS });
  try {
    const env = agentEnv(place, model.url);
    const tasks = Array.from({ length: THROUGHPUT_TASKS }, (_, index) => ({
      id: `w${index}`,
      prompt: batchPrompt(`w${index}`, "true"),
    }));
    const one = await runBatch(place, "single", tasks.slice(0, WORKERS), env, ["--workers", "1"]);
    const perTask = median(one.map((result) => result.duration_ms));
    const started = performance.now();
    await runBatch(place, "parallel", tasks, env, ["--workers", String(WORKERS)]);
    const wall = performance.now() - started;
    const ideal = (THROUGHPUT_TASKS / WORKERS) * perTask;
    return [
      {
        name: `${THROUGHPUT_TASKS} tasks, ${WORKERS} workers, ${LATENCY_MS} ms model latency: ideal`,
        value: ideal / 1000,
        unit: "s",
        target: null,
      },
      {
        name: `${THROUGHPUT_TASKS} tasks, ${WORKERS} workers: wall time (<= 1.25 x ideal)`,
        value: wall / 1000,
        unit: "s",
        target: (1.25 * ideal) / 1000,
      },
    ];
  } finally {
    await model.close();
  }
}

function agentEnv(place: Place, url: string): Record<string, string> {
  return { ...place.env, ANTHROPIC_API_KEY: "sk-ant-bench", ANTHROPIC_BASE_URL: url };
}

async function runBatch(
  place: Place,
  name: string,
  tasks: object[],
  env: Record<string, string>,
  flags: string[],
): Promise<TaskResult[]> {
  const root = join(place.home, "..", name);
  mkdirSync(root, { recursive: true });
  const file = join(root, "tasks.jsonl");
  writeFileSync(file, tasks.map((task) => JSON.stringify(task)).join("\n"));
  const out = join(root, "out");
  const args = ["batch", "run", file, "--out", out, "--work-dir", join(root, "work")];
  const run = await runCli([...args, "--permission-mode", "yolo", ...flags], { env, cwd: root });
  if (run.code !== 0) throw new Error(`batch failed (${run.code}): ${run.stderr}`);
  return readFileSync(join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as TaskResult);
}

/** A small repository, as tasks clone it: a dozen files in two commits. */
function fixtureRepository(place: Place): string {
  const repo = join(place.home, "..", "repo");
  mkdirSync(join(repo, "src"), { recursive: true });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo });
  git("init", "--quiet");
  for (let index = 0; index < 12; index += 1) {
    writeFileSync(join(repo, "src", `file${index}.ts`), `export const n${index} = ${index};\n`);
  }
  git("add", ".");
  git("-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "--quiet", "-m", "one");
  return repo;
}

export const batchBenchmark: Benchmark = {
  title: `agentloop batch (${CLI.split("/").slice(-2).join("/")}, fake model on 127.0.0.1)`,
  figures: batchFigures,
};

await runIfMain(batchBenchmark, import.meta.url);

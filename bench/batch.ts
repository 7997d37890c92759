// `agentloop batch` against the fake model: what the runner itself adds to each task (a
// worktree or a clone, two snapshots and a diff, a process, a result file) beside plain
// one-shot runs of the same agent, on a small repository and a larger one, and how close N
// workers come to N times one worker when the model is slow.
//
//   npm run build && npx tsx bench/batch.ts

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TaskResult } from "../src/batch/task-result.js";
import {
  changesSince,
  createWorkspace,
  ISOLATIONS,
  type Isolation,
  removeWorkspace,
  startingTree,
  workspaceRoot,
} from "../src/batch/workspace.js";
import { batchPrompt, startBatchModel } from "../test/support/batch-model.js";
import { CLI, freshSandbox, runCli } from "../test/support/cli-harness.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

const OVERHEAD_TASKS = 10;
const SETUP_ROUNDS = 10;
/** The larger repository: this many files of about 2 KB each (about 6 MB checked out). */
const LARGE_FILES = 3000;
const THROUGHPUT_TASKS = 16;
const WORKERS = 4;
/** The model's thinking time per reply; each task takes two replies. */
const LATENCY_MS = 400;

export async function batchFigures(): Promise<Figure[]> {
  const place = freshSandbox();
  try {
    return [
      ...(await setupFigures(place)),
      ...(await overheadFigures(place)),
      ...(await throughputFigures(place)),
    ];
  } finally {
    rmSync(join(place.home, ".."), { recursive: true, force: true });
  }
}

type Place = ReturnType<typeof freshSandbox>;

/**
 * A workspace's own cost, without the agent: made, snapshotted before and after, removed; the
 * two ways taken in turns, so that the machine's load falls on both alike.
 */
async function setupFigures(place: Place): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const files of [12, LARGE_FILES]) {
    const repo = fixtureRepository(place, `setup-${files}`, files);
    const times: Record<Isolation, number[]> = { worktree: [], clone: [] };
    for (let round = 0; round < SETUP_ROUNDS; round += 1) {
      for (const isolation of ISOLATIONS) {
        const started = performance.now();
        const root = workspaceRoot(join(place.home, "..", "setup-work"), `r${round}`);
        const workspace = await createWorkspace({
          root,
          source: repo,
          baseCommit: undefined,
          worktree: isolation === "worktree",
        });
        const tree = await startingTree(workspace, false);
        await changesSince(workspace, tree);
        await removeWorkspace(workspace);
        times[isolation].push(performance.now() - started);
      }
    }
    for (const isolation of ISOLATIONS) {
      figures.push({
        name: `workspace per attempt (checkout, snapshots, removal), ${isolation}, ${files} files`,
        value: median(times[isolation]),
        unit: "ms",
        target: null,
      });
    }
  }
  return figures;
}

async function overheadFigures(place: Place): Promise<Figure[]> {
  const model = await startBatchModel();
  try {
    const env = agentEnv(place, model.url);
    const tasksOn = (repo: string, name: string) =>
      Array.from({ length: OVERHEAD_TASKS }, (_, index) => ({
        id: `${name}${index}`,
        prompt: batchPrompt(`${name}${index}`, "true"),
        repo,
      }));
    // The same agent runs, one after the other, without the runner around them.
    const oneShot: number[] = [];
    for (const task of tasksOn("", "o")) {
      const started = performance.now();
      const run = await runCli(["-p", task.prompt, "--permission-mode", "yolo"], {
        env,
        cwd: place.workspace,
      });
      if (run.code !== 0) throw new Error(`one-shot run failed: ${run.stderr}`);
      oneShot.push(performance.now() - started);
    }
    const bare = median(oneShot);
    const figures: Figure[] = [
      {
        name: "one-shot agent run (2 turns, one bash call), median",
        value: bare,
        unit: "ms",
        target: null,
      },
    ];
    const repositories = [
      { repo: fixtureRepository(place, "small", 12), what: "12 files" },
      { repo: fixtureRepository(place, "large", LARGE_FILES), what: `${LARGE_FILES} files` },
    ];
    for (const { repo, what } of repositories) {
      for (const isolation of ["worktree", "clone"]) {
        const name = `${isolation}-${what.split(" ")[0]}`;
        const results = await runBatch(place, name, tasksOn(repo, "t"), env, [
          "--workers",
          "1",
          "--isolation",
          isolation,
        ]);
        figures.push({
          name: `runner overhead per task, ${isolation}, repository of ${what}`,
          value: median(results.map((result) => result.duration_ms)) - bare,
          unit: "ms",
          // The target was set on the small repository; a larger one's checkout is shown.
          target: repo === repositories[0]?.repo ? 150 : null,
        });
      }
    }
    return figures;
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

/** A repository of `files` files of about 2 KB in one commit, as tasks check it out. */
function fixtureRepository(place: Place, name: string, files: number): string {
  const repo = join(place.home, "..", name);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo });
  for (let index = 0; index < files; index += 1) {
    const folder = join(repo, "src", `part${Math.floor(index / 100)}`);
    mkdirSync(folder, { recursive: true });
    const line = `export const n${index} = "${randomBytes(24).toString("hex")}";\n`;
    writeFileSync(join(folder, `file${index}.ts`), line.repeat(30));
  }
  git("init", "--quiet");
  git("add", ".");
  git("-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "--quiet", "-m", "one");
  git("gc", "--quiet");
  return repo;
}

export const batchBenchmark: Benchmark = {
  title: `agentloop batch (${CLI.split("/").slice(-2).join("/")}, fake model on 127.0.0.1)`,
  figures: batchFigures,
};

await runIfMain(batchBenchmark, import.meta.url);

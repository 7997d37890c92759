// One attempt at one task, from a fresh workspace to a written result: check out, set up, run the
// agent as its own process (`agentloop -p ... --output-format stream-json`), keep what it
// changed as a patch, remove the workspace, and write result.json last. Every batch command
// (the local pool, a shard, a queue worker) is a thin layer over this function.

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { appendFile, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { killProcesses } from "../tools/process-tree.js";
import {
  agentOutcome,
  describeEnd,
  emptyFacts,
  type Facts,
  type Outcome,
  stoppedOutcome,
  takeLine,
} from "./attempt-outcome.js";
import { runInGroup } from "./group-process.js";
import { PARENT_PID_VARIABLE } from "./parent-watch.js";
import type { Task } from "./task.js";
import {
  PATCH_FILE,
  RUNNING_FILE,
  type TaskErrorKind,
  type TaskResult,
  taskDirectory,
  writeResult,
} from "./task-result.js";
import {
  changesSince,
  createWorkspace,
  type Isolation,
  isLocalRepository,
  localSource,
  removeWorkspace,
  startingTree,
  type Workspace,
  workspaceRoot,
} from "./workspace.js";

/** Tags every process of an attempt, the agent's commands' included. */
const TASK_MARKER_VARIABLE = "AGENTLOOP_BATCH_ATTEMPT";

/** A task without timeout_s gets this long. */
export const DEFAULT_TASK_TIMEOUT_S = 1800;

export interface AgentCommand {
  /** How to start agentloop: e.g. [process.execPath, "/path/to/dist/cli.js"]. */
  argv: string[];
  /** Flags every task gets: --provider, --base-url, --permission-mode, --tools, ... */
  flags: string[];
  /** The environment agents start from (API keys, PATH); the task's `env` goes on top. */
  env: NodeJS.ProcessEnv;
  /** The model tasks without a `model` of their own run on, for pricing live usage. */
  model: string;
}

export interface RunTaskOptions {
  task: Task;
  /** The batch's output folder; this task's files go to OUT/tasks/<id>/. */
  out: string;
  agent: AgentCommand;
  /** 1 for a first attempt. */
  attempt: number;
  /** Where workspaces are made (and removed). */
  workParent: string;
  /** Where relative `repo` paths start (the task file's folder). */
  repoBase: string;
  /** How a local repository is checked out; default a clone. A URL's is always cloned. */
  isolation?: Isolation;
  /** Cancels the attempt; its result says "cancelled". */
  signal?: AbortSignal;
  /** The attempt's cost so far, each time the agent reports usage. */
  onCost?: (costUsd: number) => void;
}

export async function runTask(options: RunTaskOptions): Promise<TaskResult> {
  const { task, attempt } = options;
  const directory = taskDirectory(options.out, task.id);
  const logs = join(directory, "logs");
  await mkdir(logs, { recursive: true });
  const startedAt = new Date();
  const deadline = performance.now() + (task.timeout_s ?? DEFAULT_TASK_TIMEOUT_S) * 1000;
  const facts = emptyFacts();
  let workspace: Workspace | undefined;
  let outcome: Outcome;
  try {
    const source = task.repo
      ? await localSource(task.repo, options.repoBase, join(options.out, ".repos"))
      : undefined;
    const root = workspaceRoot(options.workParent, task.id);
    const worktree = options.isolation === "worktree" && isLocalRepository(task.repo ?? "");
    const worktreeOf = worktree ? source : undefined;
    // Written first: a batch killed even in the middle of the checkout leaves a trace to clean.
    await writeFile(join(directory, RUNNING_FILE), JSON.stringify({ root, attempt, worktreeOf }));
    workspace = await createWorkspace({ root, source, baseCommit: task.base_commit, worktree });
    outcome = await setUpAndRun({ ...options, workspace, logs, deadline, facts, directory });
  } catch (error) {
    outcome = { status: "error", exitCode: null, error: errorOf("workspace", error) };
  } finally {
    if (workspace) await removeWorkspace(workspace);
  }
  const finishedAt = new Date();
  const result: TaskResult = {
    id: task.id,
    status: outcome.status,
    exit_code: outcome.exitCode,
    attempt,
    started_at: startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    duration_ms: finishedAt.getTime() - startedAt.getTime(),
    num_turns: facts.result?.num_turns ?? facts.turns,
    usage: facts.result?.usage ?? (facts.turns > 0 ? facts.usage : null),
    total_cost_usd: facts.result?.total_cost_usd ?? facts.cost,
    stop_reason: facts.result?.stop_reason ?? null,
    result: facts.result?.result ?? null,
    error: outcome.error,
    session_file: await sessionFile(directory),
    metadata: task.metadata ?? null,
  };
  await writeResult(directory, result);
  // Only now: a crash before this line is seen on the next run, and the attempt counted.
  await rm(join(directory, RUNNING_FILE), { force: true });
  return result;
}

async function setUpAndRun(
  options: RunTaskOptions & {
    workspace: Workspace;
    logs: string;
    deadline: number;
    facts: Facts;
    directory: string;
  },
): Promise<Outcome> {
  const { task, workspace, logs, attempt, facts } = options;
  const log = (name: string) => join(logs, `attempt-${attempt}.${name}`);
  const env: NodeJS.ProcessEnv = {
    ...options.agent.env,
    HOME: workspace.home,
    TMPDIR: workspace.tmp,
    ...task.env,
    ...workspace.gitEnv,
  };
  const common = { cwd: workspace.dir, env, deadline: options.deadline, signal: options.signal };
  if (task.setup) {
    const setup = await runInGroup({
      ...common,
      argv: ["bash", "-c", task.setup],
      stdoutFile: log("setup.txt"),
    });
    if (setup.stopped) return stoppedOutcome(setup);
    if (setup.exitCode !== 0) {
      const message = `setup exited with ${describeEnd(setup)}; see logs/attempt-${attempt}.setup.txt`;
      return { status: "error", exitCode: null, error: { kind: "setup", message } };
    }
  }
  const before = await startingTree(workspace, task.setup !== undefined);
  const model = task.model ?? options.agent.model;
  const marker = randomBytes(8).toString("hex");
  const run = await runInGroup({
    ...common,
    env: {
      ...env,
      [TASK_MARKER_VARIABLE]: marker,
      // Sessions are kept with the task's results, written as the agent goes.
      XDG_STATE_HOME: join(options.directory, "state"),
      [PARENT_PID_VARIABLE]: String(process.pid),
    },
    argv: [
      ...options.agent.argv,
      ...agentFlags(options, model),
      // A clone (or an empty repository) is the attempt's own, made by agentloop and thrown
      // away after: its .git may be written. A worktree's is the person's repository.
      ...(workspace.worktreeOf ? [] : ["--writable-git-dir"]),
      "--cwd",
      workspace.dir,
    ],
    stdoutFile: log("events.jsonl"),
    stderrFile: log("stderr.txt"),
    onLine: (line) => {
      const cost = takeLine(line, facts, model);
      if (cost !== null) options.onCost?.(cost);
    },
  });
  // An agent killed before it could end its commands (SIGKILL after the grace) leaves those
  // that started sessions of their own; they all still carry the attempt's marker.
  await killProcesses({ groups: [], markers: [marker], variable: TASK_MARKER_VARIABLE }, 0);
  const patch = await changesSince(workspace, before).catch(async (error: Error) => {
    // The agent may have broken the repository (removed .git, say); its result still counts.
    await appendFile(log("stderr.txt"), `agentloop batch: no patch: ${error.message}\n`);
    return "";
  });
  await writeFile(join(options.directory, PATCH_FILE), patch);
  if (run.stopped) return stoppedOutcome(run);
  return agentOutcome(run, facts.result, () => readTextOrNothing(log("stderr.txt")));
}

function agentFlags(options: RunTaskOptions, model: string): string[] {
  const { task } = options;
  return [
    ...options.agent.flags,
    "--model",
    model,
    ...(task.max_turns ? ["--max-turns", String(task.max_turns)] : []),
    ...(task.max_cost_usd ? ["--max-cost", String(task.max_cost_usd)] : []),
    "--output-format",
    "stream-json",
    "-p",
    task.prompt,
  ];
}

function errorOf(kind: TaskErrorKind, error: unknown): TaskResult["error"] {
  return { kind, message: error instanceof Error ? error.message : String(error) };
}

/** The newest session file the agent wrote, relative to the task's folder. */
async function sessionFile(directory: string): Promise<string | null> {
  const sessions = join(directory, "state", "agentloop", "sessions");
  const names = await readdir(sessions).catch(() => [] as string[]);
  const newest = names
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .at(-1);
  return newest ? relative(directory, join(sessions, newest)) : null;
}

function readTextOrNothing(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

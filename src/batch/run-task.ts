// One attempt at one task, from a fresh workspace to a written result: clone, set up, run the
// agent as its own process (`agentloop -p ... --output-format stream-json`), keep what it
// changed as a patch, remove the workspace, and write result.json last. Every batch command
// (the local pool, a shard, a queue worker) is a thin layer over this function.

import { appendFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { costOf } from "../cost.js";
import type { LoopEvent } from "../events.js";
import { requestUsage } from "../events.js";
import type { RunResult } from "../headless.js";
import { addUsage, emptyUsage, type Usage } from "../messages.js";
import { PARENT_PID_VARIABLE } from "../parent-watch.js";
import { SANDBOX_CANNOT_START } from "../sandbox.js";
import { type GroupRun, runInGroup } from "./group-process.js";
import type { Task } from "./task.js";
import {
  PATCH_FILE,
  RUNNING_FILE,
  type TaskErrorKind,
  type TaskResult,
  type TaskStatus,
  taskDirectory,
  writeResult,
} from "./task-result.js";
import {
  changesSince,
  createWorkspace,
  localSource,
  removeWorkspace,
  startingTree,
  type Workspace,
  workspaceRoot,
} from "./workspace.js";

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
    // Written first: a batch killed even in the middle of the clone leaves a trace to clean.
    await writeFile(join(directory, RUNNING_FILE), JSON.stringify({ root, attempt }));
    workspace = await createWorkspace({ root, source, baseCommit: task.base_commit });
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

interface Outcome {
  status: TaskStatus;
  exitCode: number | null;
  error: TaskResult["error"];
}

/** What the agent reported as it ran; the result line, once it arrives, is the final word. */
interface Facts {
  turns: number;
  usage: Usage;
  cost: number | null;
  result: RunResult | undefined;
}

function emptyFacts(): Facts {
  return { turns: 0, usage: emptyUsage(), cost: null, result: undefined };
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
  const run = await runInGroup({
    ...common,
    env: {
      ...env,
      // Sessions are kept with the task's results, written as the agent goes.
      XDG_STATE_HOME: join(options.directory, "state"),
      [PARENT_PID_VARIABLE]: String(process.pid),
    },
    argv: [...options.agent.argv, ...agentFlags(options, model), "--cwd", workspace.dir],
    stdoutFile: log("events.jsonl"),
    stderrFile: log("stderr.txt"),
    onLine: (line) => {
      const cost = takeLine(line, facts, model);
      if (cost !== null) options.onCost?.(cost);
    },
  });
  const patch = await changesSince(workspace, before).catch(async (error: Error) => {
    // The agent may have broken the repository (removed .git, say); its result still counts.
    await appendFile(log("stderr.txt"), `agentloop batch: no patch: ${error.message}\n`);
    return "";
  });
  await writeFile(join(options.directory, PATCH_FILE), patch);
  if (run.stopped) return stoppedOutcome(run);
  return agentOutcome(run, facts.result, await readFile(log("stderr.txt"), "utf8").catch(() => ""));
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

/** Reads one stream-json line into `facts`; returns the attempt's cost when it changed. */
function takeLine(line: string, facts: Facts, model: string): number | null {
  let event: LoopEvent | RunResult;
  try {
    event = JSON.parse(line);
  } catch {
    return null;
  }
  if (event.type === "result") {
    facts.result = event;
    return event.total_cost_usd;
  }
  const used = requestUsage(event);
  if (!used) return null;
  facts.turns += 1;
  facts.usage = addUsage(facts.usage, used);
  facts.cost = costOf(model, facts.usage);
  return facts.cost;
}

function stoppedOutcome(run: GroupRun): Outcome {
  if (run.stopped === "timeout") {
    return {
      status: "timeout",
      exitCode: run.exitCode,
      error: null,
    };
  }
  return { status: "cancelled", exitCode: run.exitCode, error: null };
}

/** Success, an agent that did not get there (failed), or a run that broke (error). */
function agentOutcome(run: GroupRun, result: RunResult | undefined, stderr: string): Outcome {
  const exitCode = run.exitCode;
  if (!result) {
    const kind: TaskErrorKind =
      exitCode !== 2 ? "worker_died" : stderr.includes(SANDBOX_CANNOT_START) ? "sandbox" : "config";
    const message = `the agent ended with ${describeEnd(run)} and no result; see its stderr log`;
    return { status: "error", exitCode, error: { kind, message } };
  }
  if (result.subtype === "success") return { status: "success", exitCode, error: null };
  const message = result.error ?? result.stop_reason;
  switch (result.stop_reason) {
    case "error":
      return { status: "error", exitCode, error: { kind: kindOf(result), message } };
    case "interrupted":
      // Nobody here stopped it: something outside ended the agent.
      return { status: "error", exitCode, error: { kind: "worker_died", message } };
    default:
      return { status: "failed", exitCode, error: null };
  }
}

function kindOf(result: RunResult): TaskErrorKind {
  switch (result.error_kind) {
    case "rate_limited":
    case "server":
    case "stream_stalled":
    case "empty_reply":
      return "retries_exhausted";
    case "authentication":
    case "model_not_found":
    case "unreachable":
    case "config":
      return "config";
    default:
      return "agent";
  }
}

function describeEnd(run: GroupRun): string {
  return run.signal ? `signal ${run.signal}` : `code ${run.exitCode}`;
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

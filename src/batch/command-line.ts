// `agentloop batch ...`: its subcommands and flags, parsed into plain objects. Every mistake is
// a ConfigError with one sentence (exit code 2) before anything runs.

import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError } from "../core/errors.js";
import { parseApi } from "../providers/api-setting.js";
import { type Shard, shardFrom } from "./shard.js";
import { ISOLATIONS, type Isolation } from "./workspace.js";

export const BATCH_USAGE = `Usage:
  agentloop batch run TASKS.jsonl --out OUT     run every task without a result in OUT
  agentloop batch report OUT                    write OUT/results.jsonl and print a summary
  agentloop batch merge SHARD_OUT... --out OUT  put the shards' results together
  agentloop batch enqueue TASKS.jsonl --queue redis://HOST:6379
  agentloop batch worker --queue redis://HOST:6379 --out OUT
  agentloop batch status --queue redis://HOST:6379 [--out OUT]

Options of run (and worker):
  --workers N                tasks at once (default 4)
  --requests-per-minute N    pace model requests of all workers together
  --progress line|jsonl|none live progress on stderr (default: line on a terminal), or
                             JSON events on stdout
  --work-dir DIR             where workspaces are made (default: the temp dir)
  --isolation worktree|clone how each task gets a local repository: a detached git
                             worktree of it (default in yolo), or a clone of its own
                             (default in sandboxed modes)
  --timeout S                time limit of a task without timeout_s (default 1800)
  --provider, --model, --base-url, --api, --permission-mode (default auto),
  --allow-network, --tools, --max-turns, --max-cost    passed to every agent, as for a
                             one-shot run
Options of run only:
  --retry-failed             run failed, timed-out and broken tasks again too
  --max-attempts N           attempts per task when the infrastructure fails (default 3;
                             for a queue, give it to enqueue)
  --max-total-cost USD       cancel the batch once it has cost this much
  --shard I/N                run only shard I (from 0) of N; "--shard N" takes I from
                             JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs)
Options of enqueue, worker and status:
  --queue redis://[USER:PASSWORD@]HOST[:PORT][/DB]   the Redis server (rediss:// for TLS)
  --queue-name NAME          the queue on that server (default agentloop)
Options of worker only:
  --jobs-per-minute N        start at most N tasks a minute, counted over all workers
  --lock-duration S          a dead worker's task goes to another after about 2*S (default 30)
  --exit-when-empty          end (exit 0) once no task is waiting, delayed or running
Options of report:
  --preds FILE               also write SWE-bench predictions (instance_id from metadata)
  --model-name NAME          model_name_or_path in the predictions (default agentloop)`;

/** The flags each agent gets, as the one-shot command line spells them. */
export interface AgentChoices {
  provider: string | undefined;
  model: string | undefined;
  baseURL: string | undefined;
  permissionMode: string;
  flags: string[];
}

export interface RunCommand {
  command: "run";
  tasksFile: string;
  out: string;
  workers: number;
  retryFailed: boolean;
  maxAttempts: number;
  maxTotalCost: number | undefined;
  requestsPerMinute: number | undefined;
  shard: Shard | undefined;
  progress: "line" | "jsonl" | "none" | undefined;
  workDir: string | undefined;
  isolation: Isolation;
  timeoutS: number | undefined;
  agent: AgentChoices;
}

/** Where a queue is: a Redis URL and the queue's name on that server. */
export interface QueuePlace {
  queue: string;
  queueName: string;
}

export interface WorkerCommand
  extends Omit<RunCommand, "command" | "tasksFile" | "shard">,
    QueuePlace {
  command: "worker";
  jobsPerMinute: number | undefined;
  lockDurationS: number;
  exitWhenEmpty: boolean;
}

export type BatchCommand =
  | RunCommand
  | WorkerCommand
  | { command: "report"; out: string; preds: string | undefined; modelName: string }
  | { command: "merge"; shards: string[]; out: string }
  | ({ command: "enqueue"; tasksFile: string; maxAttempts: number } & QueuePlace)
  | ({ command: "status"; out: string | undefined } & QueuePlace)
  | { command: "help" };

export function parseBatchCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): BatchCommand {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}. Run agentloop batch --help.`);
  }
  const { values, positionals } = parsed;
  const [sub, ...operands] = positionals;
  if (values.help || sub === undefined) return { command: "help" };
  const allowed = FLAGS_OF[sub];
  const stray = allowed && Object.keys(values).find((flag) => !allowed.includes(flag));
  if (stray) {
    throw new ConfigError(`agentloop batch ${sub} has no --${stray}. Run agentloop batch --help.`);
  }
  const path = (value: string) => resolve(cwd, value);
  const needOut = () => {
    if (!values.out) throw new ConfigError(`agentloop batch ${sub} needs --out DIR.`);
    return path(values.out);
  };
  const needQueue = (): QueuePlace => {
    if (!values.queue)
      throw new ConfigError(`agentloop batch ${sub} needs --queue redis://HOST:PORT.`);
    return { queue: values.queue, queueName: values["queue-name"] ?? "agentloop" };
  };
  const operandCount = (count: number, what: string) => {
    if (operands.length !== count) {
      throw new ConfigError(`agentloop batch ${sub} takes ${what}. Run agentloop batch --help.`);
    }
  };
  const maxAttempts = optional(values["max-attempts"], "--max-attempts", wholeNumber) ?? 3;
  const running = () => ({
    out: needOut(),
    workers: optional(values.workers, "--workers", wholeNumber) ?? 4,
    retryFailed: values["retry-failed"] ?? false,
    maxAttempts,
    maxTotalCost: optional(values["max-total-cost"], "--max-total-cost", positiveNumber),
    requestsPerMinute: optional(
      values["requests-per-minute"],
      "--requests-per-minute",
      positiveNumber,
    ),
    progress: progressStyle(values.progress),
    workDir: values["work-dir"] === undefined ? undefined : path(values["work-dir"]),
    isolation: isolationOf(values.isolation, values["permission-mode"]),
    timeoutS: optional(values.timeout, "--timeout", positiveNumber),
    agent: agentChoices(values),
  });
  switch (sub) {
    case "run":
      operandCount(1, "one task file");
      return {
        command: "run",
        tasksFile: path(operands[0] as string),
        shard: values.shard === undefined ? undefined : shardFrom(values.shard, env),
        ...running(),
      };
    case "worker":
      operandCount(0, "no file (tasks come from the queue)");
      return {
        command: "worker",
        ...needQueue(),
        ...running(),
        jobsPerMinute: optional(values["jobs-per-minute"], "--jobs-per-minute", wholeNumber),
        lockDurationS: optional(values["lock-duration"], "--lock-duration", positiveNumber) ?? 30,
        exitWhenEmpty: values["exit-when-empty"] ?? false,
      };
    case "report":
      operandCount(1, "one output folder");
      return {
        command: "report",
        out: path(operands[0] as string),
        preds: values.preds === undefined ? undefined : path(values.preds),
        modelName: values["model-name"] ?? "agentloop",
      };
    case "merge":
      if (operands.length === 0)
        throw new ConfigError("agentloop batch merge needs the shards' output folders.");
      return { command: "merge", shards: operands.map(path), out: needOut() };
    case "enqueue":
      operandCount(1, "one task file");
      return {
        command: "enqueue",
        tasksFile: path(operands[0] as string),
        ...needQueue(),
        maxAttempts,
      };
    case "status":
      operandCount(0, "no file");
      return {
        command: "status",
        ...needQueue(),
        out: values.out === undefined ? undefined : path(values.out),
      };
    default:
      throw new ConfigError(`agentloop batch has no command "${sub}". Run agentloop batch --help.`);
  }
}

const AGENT_FLAGS = [
  "provider",
  "model",
  "base-url",
  "api",
  "permission-mode",
  "allow-network",
  "tools",
  "max-turns",
  "max-cost",
];
const POOL_FLAGS = [
  "out",
  "workers",
  "requests-per-minute",
  "progress",
  "work-dir",
  "isolation",
  "timeout",
  ...AGENT_FLAGS,
];
const QUEUE_FLAGS = ["queue", "queue-name"];

/** The flags each command takes; any other is a mistake, not silently ignored. */
const FLAGS_OF: Record<string, string[]> = {
  run: [...POOL_FLAGS, "retry-failed", "max-attempts", "max-total-cost", "shard"],
  // A worker's attempts are set when the tasks are enqueued.
  worker: [...POOL_FLAGS, ...QUEUE_FLAGS, "jobs-per-minute", "lock-duration", "exit-when-empty"],
  enqueue: [...QUEUE_FLAGS, "max-attempts"],
  status: [...QUEUE_FLAGS, "out"],
  report: ["preds", "model-name"],
  merge: ["out"],
};

function agentChoices(values: ReturnType<typeof parseFlags>["values"]): AgentChoices {
  const permissionMode = values["permission-mode"] ?? "auto";
  const flags = ["--permission-mode", permissionMode];
  if (values["allow-network"]) flags.push("--allow-network");
  if (values.tools) flags.push("--tools", values.tools);
  if (values.api) flags.push("--api", parseApi(values.api, "--api"));
  if (values["max-turns"])
    flags.push("--max-turns", String(optional(values["max-turns"], "--max-turns", wholeNumber)));
  if (values["max-cost"])
    flags.push("--max-cost", String(optional(values["max-cost"], "--max-cost", positiveNumber)));
  return {
    provider: values.provider,
    model: values.model,
    baseURL: values["base-url"],
    permissionMode,
    flags,
  };
}

function progressStyle(value: string | undefined): RunCommand["progress"] {
  if (value === undefined || value === "line" || value === "jsonl" || value === "none")
    return value;
  throw new ConfigError(`--progress must be line, jsonl or none, got "${value}".`);
}

/**
 * A worktree by default where the agent's commands run outside the sandbox (yolo): sandboxed,
 * they could not write the repository's shared git directory, which lies outside the
 * workspace, so an agent's `git add` or `git commit` would fail where a clone's would not.
 */
function isolationOf(value: string | undefined, permissionMode: string | undefined): Isolation {
  if (value === undefined) return permissionMode === "yolo" ? "worktree" : "clone";
  const isolation = ISOLATIONS.find((each) => each === value);
  if (isolation) return isolation;
  throw new ConfigError(`--isolation must be worktree or clone, got "${value}".`);
}

function optional<T>(
  value: string | undefined,
  flag: string,
  parse: (text: string, flag: string) => T,
): T | undefined {
  return value === undefined ? undefined : parse(value, flag);
}

function wholeNumber(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(`${flag} must be a whole number of at least 1, got "${text}".`);
  }
  return value;
}

function positiveNumber(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`${flag} must be a number above 0, got "${text}".`);
  }
  return value;
}

function parseFlags(argv: string[]) {
  const text = { type: "string" } as const;
  const flag = { type: "boolean" } as const;
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      out: text,
      workers: text,
      "retry-failed": flag,
      "max-attempts": text,
      "max-total-cost": text,
      "requests-per-minute": text,
      shard: text,
      progress: text,
      "work-dir": text,
      isolation: text,
      timeout: text,
      queue: text,
      "queue-name": text,
      "jobs-per-minute": text,
      "lock-duration": text,
      "exit-when-empty": flag,
      preds: text,
      "model-name": text,
      provider: text,
      model: text,
      "base-url": text,
      api: text,
      "permission-mode": text,
      "allow-network": flag,
      tools: text,
      "max-turns": text,
      "max-cost": text,
      help: { type: "boolean", short: "h" },
    },
  });
}

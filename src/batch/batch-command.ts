// `agentloop batch`: thin layers over runTask and the pool. This file turns the command line
// into an AgentCommand (provider resolved once, requests through one shared rate gate) and
// prints what happened; the work itself is in run-task.ts and pool.ts.

import { readFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readDotenv } from "../dotenv.js";
import { ConfigError } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import { resolveProvider } from "../providers/presets.js";
import { BATCH_USAGE, parseBatchCommand, type RunCommand } from "./command-line.js";
import { runPool } from "./pool.js";
import { createBatchProgress, type ProgressStyle } from "./progress.js";
import { startRateGate } from "./rate-gate.js";
import { mergeShards, writeReport } from "./report.js";
import type { AgentCommand } from "./run-task.js";
import { tasksOfShard } from "./shard.js";
import { parseTasks, type Task } from "./task.js";

export interface BatchIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** How to start agentloop itself: node and this CLI's path. */
  agentArgv: string[];
}

export async function runBatchCommand(argv: string[], io: BatchIO): Promise<number> {
  const command = parseBatchCommand(argv, io.env);
  const say = (line: string) => io.stderr.write(`${line}\n`);
  switch (command.command) {
    case "help":
      io.stdout.write(`${BATCH_USAGE}\n`);
      return EXIT.done;
    case "run":
      return runLocalPool(command, io);
    case "report": {
      const { summary, lines } = await writeReport(command.out, command);
      for (const line of lines) io.stdout.write(`${line}\n`);
      return summary.exit_code;
    }
    case "merge": {
      const { merged, notices } = mergeShards(command.shards, command.out);
      for (const notice of notices) say(`agentloop: ${notice}`);
      const { lines } = await writeReport(command.out);
      say(
        `Merged ${merged} task results from ${command.shards.length} folders into ${command.out}.`,
      );
      for (const line of lines) io.stdout.write(`${line}\n`);
      return EXIT.done;
    }
    case "enqueue":
    case "worker":
    case "status": {
      const { runQueueCommand } = await import("./queue-command.js");
      return runQueueCommand(command, io);
    }
  }
}

/** Reads and checks a task file; every bad line is reported before anything runs. */
export function readTasks(file: string): Task[] {
  let content: string;
  try {
    content = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read the task file ${file}: ${(error as Error).message}.`);
  }
  return parseTasks(content, file);
}

async function runLocalPool(command: RunCommand, io: BatchIO): Promise<number> {
  const tasks = tasksOfShard(readTasks(command.tasksFile), command.shard).map((task) => ({
    ...(command.timeoutS ? { timeout_s: command.timeoutS } : {}),
    ...task,
  }));
  const { agent, close } = await prepareAgents(command, io);
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);
  try {
    const summary = await runPool({
      tasks,
      out: command.out,
      agent,
      workers: command.workers,
      workParent: workParentOf(command),
      repoBase: dirname(command.tasksFile),
      retryFailed: command.retryFailed,
      maxAttempts: command.maxAttempts,
      maxTotalCost: command.maxTotalCost,
      signal: controller.signal,
      onProgress: createBatchProgress(progressStyleOf(command, io), io),
    });
    await writeReport(command.out);
    return summary.exit_code;
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
    await close();
  }
}

/**
 * How every task's agent starts: the provider resolved once here (a missing key is one error,
 * not one per task), and for an API, its requests sent through one rate gate for all.
 */
export async function prepareAgents(
  command: Pick<RunCommand, "agent" | "requestsPerMinute">,
  io: BatchIO,
  /** Also told of each pause, to spread it further (to every worker of a queue). */
  onPause?: (ms: number) => void,
): Promise<{ agent: AgentCommand; close: () => Promise<void> }> {
  const env = { ...readDotenv(join(process.cwd(), ".env")), ...io.env };
  const resolved = resolveProvider({
    provider: command.agent.provider,
    model: command.agent.model,
    baseURL: command.agent.baseURL,
    env,
  });
  if (resolved instanceof ConfigError) throw resolved;
  const flags = ["--provider", resolved.preset, ...command.agent.flags];
  let close = (): Promise<void> => Promise.resolve();
  if (resolved.protocol !== "local") {
    const gate = await startRateGate({
      upstream: resolved.baseURL,
      requestsPerMinute: command.requestsPerMinute,
      onPause: (ms) => {
        io.stderr.write(
          `agentloop: the API asked to slow down; all workers wait ${Math.ceil(ms / 1000)} s.\n`,
        );
        onPause?.(ms);
      },
    });
    flags.push("--base-url", gate.url);
    close = gate.close;
  }
  // Each task gets its own HOME; the user's settings and downloaded models stay where they are.
  const home = homedir();
  const agentEnv: NodeJS.ProcessEnv = {
    ...io.env,
    // A key found in .env only: the agent keeps it from the commands it runs, as with any key.
    ...(resolved.apiKeyEnv && resolved.apiKey ? { [resolved.apiKeyEnv]: resolved.apiKey } : {}),
    XDG_CONFIG_HOME: io.env.XDG_CONFIG_HOME || join(home, ".config"),
    XDG_CACHE_HOME: io.env.XDG_CACHE_HOME || join(home, ".cache"),
  };
  return { agent: { argv: io.agentArgv, flags, env: agentEnv, model: resolved.model }, close };
}

export function workParentOf(command: Pick<RunCommand, "workDir">): string {
  return command.workDir ?? join(tmpdir(), "agentloop-batch");
}

function progressStyleOf(command: RunCommand, io: BatchIO): ProgressStyle {
  if (command.progress === "jsonl" || command.progress === "none") return command.progress;
  return io.stderr.isTTY ? "line" : "log";
}

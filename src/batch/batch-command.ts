// `agentloop batch`: thin layers over runTask and the pool. This file turns the command line
// into an AgentCommand (provider resolved once, requests through one shared rate gate) and
// prints what happened; the work itself is in run-task.ts and pool.ts.

import { dirname } from "node:path";
import { EXIT } from "../core/exit-codes.js";
import { type BatchIO, prepareAgents, workParentOf } from "./agents.js";
import { BATCH_USAGE, parseBatchCommand, type RunCommand } from "./command-line.js";
import { runPool } from "./pool.js";
import { createBatchProgress, type ProgressStyle } from "./progress.js";
import { mergeShards, writeReport } from "./report.js";
import { tasksOfShard } from "./shard.js";
import { readTasks } from "./task.js";

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
      isolation: command.isolation,
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

function progressStyleOf(command: RunCommand, io: BatchIO): ProgressStyle {
  if (command.progress === "jsonl" || command.progress === "none") return command.progress;
  return io.stderr.isTTY ? "line" : "log";
}

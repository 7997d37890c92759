// `agentloop batch enqueue | worker | status`: one batch spread over any number of machines
// through a BullMQ queue on Redis. Each task is one job whose id is the task's id, so enqueueing
// a file twice adds nothing. The results stay with the jobs in Redis until `status --out`
// gathers them into one output folder, the same folder `batch run` would have made.

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Job } from "bullmq";
import { EXIT } from "../core/exit-codes.js";
import type { BatchIO } from "./agents.js";
import type { BatchCommand } from "./command-line.js";
import { summarize } from "./pool.js";
import {
  type BullMQ,
  type JobData,
  type JobOutcome,
  loadBullMQ,
  openQueue,
  type TaskQueue,
} from "./queue-connection.js";
import { runQueueWorker } from "./queue-worker.js";
import { writeReport } from "./report.js";
import { readTasks } from "./task.js";
import {
  PATCH_FILE,
  readResult,
  type TaskResult,
  taskDirectory,
  writeResult,
} from "./task-result.js";

export type QueueCommand = Extract<BatchCommand, { command: "enqueue" | "worker" | "status" }>;

/** The pause before the first retry of an infrastructure error; each next one waits twice as long. */
const RETRY_DELAY_MS = 5000;
/** Jobs read from Redis at a time by `status`. */
const PAGE = 500;
/** The states `status` shows; jobs in the first four are not finished. */
const STATES = ["waiting", "active", "delayed", "prioritized", "completed", "failed"] as const;

export async function runQueueCommand(command: QueueCommand, io: BatchIO): Promise<number> {
  const bull = await loadBullMQ();
  switch (command.command) {
    case "enqueue":
      return enqueue(bull, command, io);
    case "worker":
      return runQueueWorker(bull, command, io);
    case "status":
      return status(bull, command, io);
  }
}

async function enqueue(
  bull: BullMQ,
  command: Extract<QueueCommand, { command: "enqueue" }>,
  io: BatchIO,
): Promise<number> {
  const tasks = readTasks(command.tasksFile);
  const queue = await openQueue(bull, command);
  try {
    const known = await Promise.all(tasks.map((task) => queue.getJob(jobIdOf(task.id))));
    const fresh = tasks.filter((_, index) => !known[index]);
    const repoBase = dirname(command.tasksFile);
    // The job id makes adding idempotent even when two enqueues race: BullMQ keeps the first.
    // Finished jobs stay in Redis with their results (BullMQ's default), for `status` to gather.
    await queue.addBulk(
      fresh.map((task) => ({
        name: "task",
        data: { task, repoBase },
        opts: {
          jobId: jobIdOf(task.id),
          attempts: command.maxAttempts,
          backoff: { type: "exponential", delay: RETRY_DELAY_MS },
        },
      })),
    );
    io.stdout.write(
      `Queued ${fresh.length} tasks on "${command.queueName}"; ${tasks.length - fresh.length} were queued already.\n`,
    );
    return EXIT.done;
  } finally {
    await queue.close();
  }
}

/**
 * A task's job id. Prefixed, because BullMQ keeps a job under its id right next to its own
 * keys: a task named "paused" or "wait" would take their place, and "12" is refused as one of
 * its own numbered jobs.
 */
function jobIdOf(taskId: string): string {
  return `task-${taskId}`;
}

async function status(
  bull: BullMQ,
  command: Extract<QueueCommand, { command: "status" }>,
  io: BatchIO,
): Promise<number> {
  const queue = await openQueue(bull, command);
  try {
    const counts = await queue.getJobCounts(...STATES);
    const say = (line: string) => io.stdout.write(`${line}\n`);
    say(`Queue "${command.queueName}":`);
    for (const state of STATES) say(`  ${state.padEnd(11)} ${counts[state] ?? 0}`);
    const results = new Map<string, TaskResult>();
    for await (const job of finishedJobs(queue)) {
      const outcome = outcomeOf(job);
      results.set(outcome.result.id, outcome.result);
      if (command.out) await keep(command.out, outcome);
    }
    const total = STATES.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
    const pending = total - (counts.completed ?? 0) - (counts.failed ?? 0);
    if (command.out) {
      const { lines } = await writeReport(command.out);
      for (const line of lines) say(line);
    }
    if (pending > 0) say(`${pending} tasks are not finished yet.`);
    // As for a local batch: 0 once every task succeeded, 3 if the infrastructure failed some.
    return summarize(total, results, null).exit_code;
  } finally {
    await queue.close();
  }
}

async function* finishedJobs(queue: TaskQueue): AsyncGenerator<Job<JobData, JobOutcome>> {
  for (const state of ["completed", "failed"] as const) {
    for (let start = 0; ; start += PAGE) {
      const jobs = (await queue.getJobs(state, start, start + PAGE - 1, true)) as Job<
        JobData,
        JobOutcome
      >[];
      yield* jobs;
      if (jobs.length < PAGE) break;
    }
  }
}

/**
 * A finished job's result: what it returned, or for a job that failed for good, the last
 * attempt's result the worker kept with it; a job whose workers all died has neither.
 */
function outcomeOf(job: Job<JobData, JobOutcome>): JobOutcome {
  if (job.returnvalue) return job.returnvalue;
  const kept = job.progress as JobOutcome | number;
  if (typeof kept === "object" && kept?.result) return kept;
  const startedAt = new Date(job.processedOn ?? job.timestamp);
  const finishedAt = new Date(job.finishedOn ?? Date.now());
  return {
    patch: "",
    result: {
      id: job.data.task.id,
      status: "error",
      exit_code: null,
      attempt: job.attemptsStarted,
      started_at: startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      duration_ms: finishedAt.getTime() - startedAt.getTime(),
      num_turns: 0,
      usage: null,
      total_cost_usd: null,
      stop_reason: null,
      result: null,
      error: { kind: "worker_died", message: job.failedReason || "the job failed" },
      session_file: null,
      metadata: job.data.task.metadata ?? null,
    },
  };
}

/** Writes a job's result into OUT unless that attempt's result is there already. */
async function keep(out: string, outcome: JobOutcome): Promise<void> {
  const directory = taskDirectory(out, outcome.result.id);
  if (readResult(directory)?.started_at === outcome.result.started_at) return;
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, PATCH_FILE), outcome.patch);
  // Last: result.json is what marks a task done.
  await writeResult(directory, outcome.result);
}

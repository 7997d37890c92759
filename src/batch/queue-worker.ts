// `agentloop batch worker`: takes tasks from the queue, --workers at a time, and runs each as
// one attempt of runTask into this machine's OUT; what it came to goes back to the job. Start
// as many workers on as many machines as you like. What makes this a distributed batch is
// BullMQ's, not ours: the job of a worker that died (its lock no longer renewed) goes to another
// worker, an attempt the infrastructure broke is thrown back and retried with backoff,
// --jobs-per-minute is counted in Redis over all workers, and a 429 from the API holds back
// every worker's next jobs (queue.rateLimit) as well as this machine's requests.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Job } from "bullmq";
import { EXIT } from "../core/exit-codes.js";
import { type BatchIO, prepareAgents, workParentOf } from "./agents.js";
import type { WorkerCommand } from "./command-line.js";
import { createBatchProgress } from "./progress.js";
import {
  type BullMQ,
  type JobData,
  type JobOutcome,
  openQueue,
  redisOptions,
} from "./queue-connection.js";
import { runTask } from "./run-task.js";
import {
  clearInterruptedAttempt,
  isInfrastructureError,
  PATCH_FILE,
  taskDirectory,
} from "./task-result.js";

/** How often a worker with --exit-when-empty asks whether anything is left. */
const EMPTY_CHECK_MS = 2000;

export async function runQueueWorker(
  bull: BullMQ,
  command: WorkerCommand,
  io: BatchIO,
): Promise<number> {
  // Opened first, so that a Redis out of reach is one error before anything starts.
  const queue = await openQueue(bull, command);
  // A 429 seen here pauses the whole queue, on every machine, for as long as the API asked.
  const { agent, close } = await prepareAgents(command, io, (ms) => {
    queue.rateLimit(ms).catch(() => undefined);
  });
  // Without a known total, a live progress line has nothing to count towards: one line a task.
  const progress = createBatchProgress(
    command.progress === "jsonl" || command.progress === "none" ? command.progress : "log",
    io,
  );
  const out = command.out;

  const processor = async (
    job: Job<JobData, JobOutcome>,
    token: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<JobOutcome> => {
    const { task, repoBase } = job.data;
    const directory = taskDirectory(out, task.id);
    // A worker killed on this machine may have left this task's workspace behind.
    clearInterruptedAttempt(directory);
    // Counts every start, those a dead worker never finished too.
    const attempt = job.attemptsStarted;
    progress({ type: "task_started", id: task.id, attempt });
    const result = await runTask({
      task: { ...(command.timeoutS ? { timeout_s: command.timeoutS } : {}), ...task },
      out,
      agent,
      attempt,
      workParent: workParentOf(command),
      repoBase,
      isolation: command.isolation,
      signal,
    });
    if (result.status === "cancelled") {
      // This worker is stopping: the task goes back to the queue as it was, no attempt used.
      await job.moveToWait(token);
      throw new bull.WaitingError();
    }
    const patch = await readFile(join(directory, PATCH_FILE), "utf8").catch(() => "");
    const outcome = { result, patch };
    const broken = isInfrastructureError(result);
    const attemptsLeft = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
    progress({ type: "task_finished", result, will_retry: broken && attemptsLeft });
    if (!broken) return outcome;
    // Thrown, so that BullMQ tries again after a backoff; kept with the job in case this was
    // the last attempt, for `status` to report.
    await job.updateProgress(outcome);
    throw new Error(`${result.error?.kind}: ${result.error?.message}`);
  };

  const lockDuration = command.lockDurationS * 1000;
  const worker = new bull.Worker<JobData, JobOutcome>(command.queueName, processor, {
    connection: redisOptions(command.queue),
    concurrency: command.workers,
    // A live worker renews its jobs' locks every lockDuration/2; a job whose lock ran out is
    // found by the next stalled-job check of any worker and handed to another.
    lockDuration,
    stalledInterval: lockDuration,
    ...(command.jobsPerMinute ? { limiter: { max: command.jobsPerMinute, duration: 60_000 } } : {}),
  });
  // ioredis reconnects by itself; say so, once each time it fails.
  worker.on("error", (error) => io.stderr.write(`agentloop: Redis: ${error.message}\n`));

  let interrupted = false;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const onSignal = () => {
    interrupted = true;
    stop();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let checkTimer: NodeJS.Timeout | undefined;
  const emptied = new Promise<void>((resolve) => {
    if (!command.exitWhenEmpty) return;
    checkTimer = setInterval(async () => {
      const counts = await queue
        .getJobCounts("waiting", "active", "delayed", "prioritized", "paused")
        .catch(() => null);
      if (counts && Object.values(counts).every((count) => count === 0)) resolve();
    }, EMPTY_CHECK_MS);
  });
  try {
    await Promise.race([stopped, emptied]);
    // No new jobs from here; the running ones are cancelled, so their agents stop and the
    // jobs go back to the queue.
    const closing = worker.close();
    worker.cancelAllJobs("the worker is stopping");
    await closing;
  } finally {
    clearInterval(checkTimer);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await queue.close();
    await close();
  }
  return interrupted ? EXIT.interrupted : EXIT.done;
}

// The local pool: N workers take the tasks that have no result yet, one attempt at a time.
// Infrastructure errors are tried again a bounded number of times; an agent that failed is
// not. A cost budget for the whole batch, and Ctrl-C, cancel what runs and start nothing new.

import { setTimeout as sleep } from "node:timers/promises";
import { type AgentCommand, runTask } from "./run-task.js";
import type { Task } from "./task.js";
import {
  clearInterruptedAttempt,
  isInfrastructureError,
  readResult,
  type TaskResult,
  type TaskStatus,
  taskDirectory,
} from "./task-result.js";
import type { Isolation } from "./workspace.js";

export interface PoolOptions {
  tasks: Task[];
  out: string;
  agent: AgentCommand;
  workers: number;
  workParent: string;
  repoBase: string;
  isolation: Isolation;
  /** Rerun tasks that failed, timed out or broke, not only those never finished. */
  retryFailed: boolean;
  /** Attempts per task and run when each ends in an infrastructure error. */
  maxAttempts: number;
  /** Stop (cancel what runs, start nothing) once the batch has cost this much. */
  maxTotalCost?: number;
  /** Ends the run: what runs is cancelled; the results so far stay. */
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export type ProgressEvent =
  | { type: "batch_started"; total: number; to_run: number; workers: number }
  | { type: "task_started"; id: string; attempt: number }
  | { type: "task_finished"; result: TaskResult; will_retry: boolean }
  | { type: "cost"; total_cost_usd: number }
  | { type: "batch_finished"; summary: BatchSummary };

export interface BatchSummary {
  total: number;
  counts: Record<TaskStatus, number>;
  /** Tasks that have no result at all (never started before the batch stopped). */
  not_run: number;
  total_cost_usd: number;
  /** Why the batch stopped early, if it did. */
  stopped: "interrupted" | "max_total_cost" | null;
  exit_code: number;
}

const RETRY_PAUSE_MS = 1000;

export async function runPool(options: PoolOptions): Promise<BatchSummary> {
  const emit = options.onProgress ?? (() => undefined);
  const results = new Map<string, TaskResult>();
  const queue: { task: Task; attempt: number }[] = [];
  for (const task of options.tasks) {
    const directory = taskDirectory(options.out, task.id);
    const interrupted = clearInterruptedAttempt(directory);
    const earlier = readResult(directory);
    if (earlier && !shouldRunAgain(earlier, options.retryFailed)) results.set(task.id, earlier);
    else queue.push({ task, attempt: Math.max(earlier?.attempt ?? 0, interrupted) + 1 });
  }
  emit({
    type: "batch_started",
    total: options.tasks.length,
    to_run: queue.length,
    workers: options.workers,
  });

  const stop = new AbortController();
  let stopped: BatchSummary["stopped"] = null;
  const halt = (why: NonNullable<BatchSummary["stopped"]>) => {
    stopped ??= why;
    stop.abort();
  };
  const onSignal = () => halt("interrupted");
  if (options.signal?.aborted) onSignal();
  options.signal?.addEventListener("abort", onSignal);

  const finishedCost = () => sum([...results.values()].map((result) => result.total_cost_usd ?? 0));
  const running = new Map<string, number>();
  const reportCost = () => {
    const total = finishedCost() + sum([...running.values()]);
    emit({ type: "cost", total_cost_usd: total });
    if (options.maxTotalCost !== undefined && total >= options.maxTotalCost) halt("max_total_cost");
  };

  const work = async () => {
    for (let next = queue.shift(); next && !stop.signal.aborted; next = queue.shift()) {
      const { task } = next;
      for (let attempt = next.attempt, tries = 1; ; attempt += 1, tries += 1) {
        emit({ type: "task_started", id: task.id, attempt });
        running.set(task.id, 0);
        const result = await runTask({
          task,
          out: options.out,
          agent: options.agent,
          attempt,
          workParent: options.workParent,
          repoBase: options.repoBase,
          isolation: options.isolation,
          signal: stop.signal,
          onCost: (cost) => {
            running.set(task.id, cost);
            reportCost();
          },
        });
        running.delete(task.id);
        results.set(task.id, result);
        const willRetry =
          isInfrastructureError(result) && tries < options.maxAttempts && !stop.signal.aborted;
        emit({ type: "task_finished", result, will_retry: willRetry });
        reportCost();
        if (!willRetry) break;
        await sleep(RETRY_PAUSE_MS * 2 ** (tries - 1), undefined, { signal: stop.signal }).catch(
          () => undefined,
        );
        if (stop.signal.aborted) break;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.workers) }, work));
  } finally {
    options.signal?.removeEventListener("abort", onSignal);
  }
  const summary = summarize(options.tasks.length, results, stopped);
  emit({ type: "batch_finished", summary });
  return summary;
}

/** A result is final unless it was cancelled or the infrastructure broke (or the user asks). */
export function shouldRunAgain(result: TaskResult, retryFailed: boolean): boolean {
  if (result.status === "cancelled" || isInfrastructureError(result)) return true;
  return retryFailed && result.status !== "success";
}

export function summarize(
  total: number,
  results: Map<string, TaskResult>,
  stopped: BatchSummary["stopped"],
): BatchSummary {
  const counts: Record<TaskStatus, number> = {
    success: 0,
    failed: 0,
    error: 0,
    timeout: 0,
    cancelled: 0,
  };
  let infrastructure = false;
  for (const result of results.values()) {
    counts[result.status] += 1;
    if (isInfrastructureError(result)) infrastructure = true;
  }
  const notRun = total - results.size;
  const allDone = counts.success === total;
  return {
    total,
    counts,
    not_run: notRun,
    total_cost_usd: sum([...results.values()].map((result) => result.total_cost_usd ?? 0)),
    stopped,
    exit_code: stopped === "interrupted" ? 130 : allDone ? 0 : infrastructure ? 3 : 1,
  };
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

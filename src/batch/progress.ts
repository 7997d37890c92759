// How a batch shows itself while it runs: a live line on a terminal (done/total, running, the
// count of each status, cost, time left), one line per finished task in a log, or every event
// as a JSON line on stdout for CI to read.

import type { BatchSummary, ProgressEvent } from "./pool.js";
import type { TaskStatus } from "./task-result.js";

export type ProgressStyle = "line" | "log" | "jsonl" | "none";

export interface ProgressOutput {
  write(text: string): unknown;
}

export function createBatchProgress(
  style: ProgressStyle,
  streams: { stdout: ProgressOutput; stderr: ProgressOutput },
): (event: ProgressEvent) => void {
  if (style === "none") return () => undefined;
  if (style === "jsonl") return (event) => streams.stdout.write(`${JSON.stringify(event)}\n`);
  const started = Date.now();
  let total = 0;
  let done = 0;
  let cost = 0;
  const running = new Set<string>();
  const counts = new Map<TaskStatus, number>();
  const line = () => {
    const statuses = [...counts].map(([status, count]) => `${status} ${count}`).join(" · ");
    const left = total - done;
    const eta =
      done > 0 && left > 0
        ? ` · about ${duration(((Date.now() - started) / done) * left)} left`
        : "";
    return `${done}/${total} done · ${running.size} running${statuses ? ` · ${statuses}` : ""} · $${cost.toFixed(2)}${eta}`;
  };
  return (event) => {
    switch (event.type) {
      case "batch_started":
        total = event.to_run;
        break;
      case "task_started":
        running.add(event.id);
        break;
      case "cost":
        cost = event.total_cost_usd;
        break;
      case "task_finished": {
        running.delete(event.result.id);
        if (event.will_retry) break;
        done += 1;
        const { status } = event.result;
        counts.set(status, (counts.get(status) ?? 0) + 1);
        if (style === "log") streams.stderr.write(`${taskLine(event.result)}\n`);
        break;
      }
      case "batch_finished":
        if (style === "line") streams.stderr.write("\r\x1b[K");
        streams.stderr.write(`${finalLine(event.summary)}\n`);
        return;
    }
    if (style === "line") streams.stderr.write(`\r\x1b[K${line()}`);
  };
}

function taskLine(result: {
  id: string;
  status: TaskStatus;
  duration_ms: number;
  error: { kind: string; message: string } | null;
}): string {
  const why = result.error ? `: ${result.error.kind}, ${result.error.message}` : "";
  return `task ${result.id}: ${result.status} in ${duration(result.duration_ms)}${why}`;
}

function finalLine(summary: BatchSummary): string {
  const counts = Object.entries(summary.counts)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`)
    .join(", ");
  const stopped =
    summary.stopped === "max_total_cost"
      ? " Stopped at --max-total-cost."
      : summary.stopped === "interrupted"
        ? " Interrupted; run the same command again to finish."
        : "";
  const notRun = summary.not_run > 0 ? `, ${summary.not_run} not run` : "";
  return `batch: ${summary.total} tasks: ${counts || "none finished"}${notRun}; $${summary.total_cost_usd.toFixed(4)}.${stopped}`;
}

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

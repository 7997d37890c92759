// What a batch shows while it runs: a live line on a terminal, a line per task in a log.

import { describe, expect, it } from "vitest";
import type { ProgressEvent } from "../src/batch/pool.js";
import { createBatchProgress } from "../src/batch/progress.js";
import type { TaskResult } from "../src/batch/task-result.js";

function finished(id: string, status: TaskResult["status"], willRetry = false): ProgressEvent {
  const result = {
    id,
    status,
    duration_ms: 12_000,
    error: status === "error" ? { kind: "worker_died", message: "the agent ended" } : null,
  } as TaskResult;
  return { type: "task_finished", result, will_retry: willRetry };
}

const events: ProgressEvent[] = [
  { type: "batch_started", total: 3, to_run: 3, workers: 2 },
  { type: "task_started", id: "a", attempt: 1 },
  { type: "task_started", id: "b", attempt: 1 },
  { type: "cost", total_cost_usd: 0.5 },
  finished("a", "success"),
  finished("b", "error", true),
  { type: "task_started", id: "b", attempt: 2 },
  finished("b", "failed"),
];

function shown(style: "line" | "log"): { stdout: string; stderr: string } {
  const output = { stdout: "", stderr: "" };
  const show = createBatchProgress(style, {
    stdout: { write: (text: string) => (output.stdout += text) },
    stderr: { write: (text: string) => (output.stderr += text) },
  });
  for (const event of events) show(event);
  return output;
}

describe("batch progress", () => {
  it("keeps one live line on a terminal: done/total, running, statuses and cost", () => {
    const { stdout, stderr } = shown("line");
    expect(stdout).toBe("");
    const frames = stderr.split("\r\x1b[K").filter(Boolean);
    expect(frames[3]).toBe("0/3 done · 2 running · $0.50");
    expect(frames.at(-1)).toMatch(
      /^2\/3 done · 0 running · success 1 · failed 1 · \$0\.50 · about \d+s left$/,
    );
  });

  it("writes one line per finished task in a log, and a retried attempt is not counted", () => {
    const { stderr } = shown("log");
    expect(stderr.split("\n").filter(Boolean)).toEqual([
      "task a: success in 12s",
      "task b: failed in 12s",
    ]);
  });
});

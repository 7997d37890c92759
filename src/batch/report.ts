// What a batch came to, from its output folder alone: every task's result.json gathered into
// results.jsonl, a summary table, SWE-bench predictions on request, and the merge of shards'
// folders into one. Nothing here needs the run that made the results.

import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../core/atomic-write.js";
import { type BatchSummary, summarize } from "./pool.js";
import { PATCH_FILE, readResult, type TaskResult, taskDirectory } from "./task-result.js";

export function collectResults(out: string): TaskResult[] {
  const tasks = join(out, "tasks");
  if (!existsSync(tasks)) return [];
  return readdirSync(tasks)
    .sort()
    .map((id) => readResult(join(tasks, id)))
    .filter((result): result is TaskResult => result !== null);
}

export interface ReportOptions {
  /** Where to write SWE-bench predictions, if anywhere. */
  preds?: string;
  modelName?: string;
}

/** Writes results.jsonl (and predictions); returns the summary and its table as lines. */
export async function writeReport(
  out: string,
  options: ReportOptions = {},
): Promise<{ summary: BatchSummary; lines: string[] }> {
  const results = collectResults(out);
  await writeFileAtomically(
    join(out, "results.jsonl"),
    results.map((result) => `${JSON.stringify(result)}\n`).join(""),
  );
  if (options.preds) {
    await writeFileAtomically(options.preds, predictions(out, results, options.modelName));
  }
  const summary = summarize(
    results.length,
    new Map(results.map((result) => [result.id, result])),
    null,
  );
  return { summary, lines: summaryTable(results, summary) };
}

/** SWE-bench's prediction format: instance_id (from metadata, else the task id) to patch. */
function predictions(out: string, results: TaskResult[], modelName = "agentloop"): string {
  const entries: Record<string, object> = {};
  for (const result of results) {
    const metadata = (result.metadata ?? {}) as { instance_id?: unknown };
    const instance = typeof metadata.instance_id === "string" ? metadata.instance_id : result.id;
    let patch = "";
    try {
      patch = readFileSync(join(taskDirectory(out, result.id), PATCH_FILE), "utf8");
    } catch {
      // No patch: the attempt never got as far as the agent.
    }
    entries[instance] = {
      instance_id: instance,
      model_name_or_path: modelName,
      model_patch: patch,
    };
  }
  return `${JSON.stringify(entries, null, 2)}\n`;
}

function summaryTable(results: TaskResult[], summary: BatchSummary): string[] {
  const lines = [`${summary.total} tasks with a result:`];
  for (const [status, count] of Object.entries(summary.counts)) {
    if (count > 0) lines.push(`  ${status.padEnd(10)} ${count}`);
  }
  const turns = results.reduce((total, result) => total + result.num_turns, 0);
  lines.push(`  cost       $${summary.total_cost_usd.toFixed(4)}, ${turns} model turns`);
  for (const result of results) {
    if (result.status === "success") continue;
    const why = result.error ? `${result.error.kind}: ${result.error.message}` : result.stop_reason;
    lines.push(`  ${result.id}: ${result.status}${why ? ` (${why})` : ""}`);
  }
  return lines;
}

/**
 * Copies the tasks of the shards' output folders into `out`. A task found twice (a shard run
 * again elsewhere) keeps the result that finished last.
 */
export function mergeShards(shards: string[], out: string): { merged: number; notices: string[] } {
  const notices: string[] = [];
  let merged = 0;
  for (const shard of shards) {
    if (!existsSync(join(shard, "tasks"))) {
      notices.push(`${shard} has no tasks folder; skipped.`);
      continue;
    }
    for (const result of collectResults(shard)) {
      const target = taskDirectory(out, result.id);
      const present = readResult(target);
      if (present)
        notices.push(`task ${result.id} is in more than one shard; kept the later result.`);
      if (present && present.finished_at >= result.finished_at) continue;
      rmSync(target, { recursive: true, force: true });
      cpSync(taskDirectory(shard, result.id), target, { recursive: true });
      merged += 1;
    }
  }
  return { merged, notices };
}

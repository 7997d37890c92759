// What one task came to. `OUT/tasks/<id>/result.json` is written atomically after everything
// else of the attempt, so its presence is the one mark that a task is done: a batch killed at
// any moment either has a task's whole result or none, and runs it again.

import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../core/atomic-write.js";
import type { Usage } from "../core/messages.js";
import { pruneWorktrees } from "./worktree-workspace.js";

export type TaskStatus = "success" | "failed" | "error" | "timeout" | "cancelled";

/**
 * Why an attempt ended in "error". Infrastructure kinds are retried automatically; the others
 * would fail the same way again.
 */
export type TaskErrorKind =
  /** The repository could not be cloned or checked out. */
  | "workspace"
  /** The task's setup command failed. */
  | "setup"
  /** The agent process ended without a result (crashed, killed from outside). */
  | "worker_died"
  /** The sandbox failed its trial run (bubblewrap missing, or out of namespaces for now). */
  | "sandbox"
  /** The model API kept failing after the agent's own retries. */
  | "retries_exhausted"
  /** The agent could not start: key, model or base URL. */
  | "config"
  /** The agent stopped with an error of its own (a refusal, a context it could not fit). */
  | "agent";

export const INFRASTRUCTURE_ERRORS: readonly TaskErrorKind[] = [
  "workspace",
  "worker_died",
  "sandbox",
  "retries_exhausted",
];

export interface TaskResult {
  id: string;
  status: TaskStatus;
  /** The agent's exit code; null when it never ran or was killed. */
  exit_code: number | null;
  /** 1 for the first attempt; retries and reruns count on. */
  attempt: number;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  num_turns: number;
  usage: Usage | null;
  total_cost_usd: number | null;
  /** The agent's stop reason (end_turn, max_turns, ...), when it reported one. */
  stop_reason: string | null;
  /** The agent's final answer. */
  result: string | null;
  error: { kind: TaskErrorKind; message: string } | null;
  /** Relative to the task's folder; null when the agent never started a session. */
  session_file: string | null;
  metadata: unknown;
}

export const RESULT_FILE = "result.json";
export const PATCH_FILE = "patch.diff";
/** Present while an attempt runs: where its workspace is, to remove it after a crash. */
export const RUNNING_FILE = "running.json";

export function taskDirectory(out: string, id: string): string {
  return join(out, "tasks", id);
}

export async function writeResult(directory: string, result: TaskResult): Promise<void> {
  await writeFileAtomically(join(directory, RESULT_FILE), `${JSON.stringify(result, null, 2)}\n`);
}

/** The task's result, or null when it has none yet (or an unreadable one, which is redone). */
export function readResult(directory: string): TaskResult | null {
  try {
    return JSON.parse(readFileSync(join(directory, RESULT_FILE), "utf8")) as TaskResult;
  } catch {
    return null;
  }
}

export function isInfrastructureError(result: TaskResult): boolean {
  return result.status === "error" && INFRASTRUCTURE_ERRORS.includes(result.error?.kind ?? "agent");
}

/** Removes what an attempt killed with the batch left behind; returns the attempt it was. */
export function clearInterruptedAttempt(directory: string): number {
  let running: { root: string; attempt: number; worktreeOf?: string };
  try {
    running = JSON.parse(readFileSync(join(directory, RUNNING_FILE), "utf8"));
  } catch {
    return 0;
  }
  rmSync(running.root, { recursive: true, force: true });
  if (running.worktreeOf) pruneWorktrees(running.worktreeOf);
  rmSync(join(directory, RUNNING_FILE), { force: true });
  return running.attempt;
}

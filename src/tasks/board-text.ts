// How the board reads, to the model and to a person: one line per task for task_list, /board
// and a compaction's restatement, and the whole task for task_get.

import { plural } from "../core/wording.js";
import type { BoardTask } from "./board-rules.js";

/** `#2 [pending] Deploy (owner: lead; waits for #1)` */
export function taskLine(task: BoardTask): string {
  const notes = [
    ...(task.owner ? [`owner: ${task.owner}`] : []),
    ...(task.blocked_by.length > 0
      ? [`waits for ${task.blocked_by.map((id) => `#${id}`).join(", ")}`]
      : []),
  ];
  const status = task.status.replace("_", " ");
  return `#${task.id} [${status}] ${task.subject}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`;
}

/** Everything task_get says of `task`, with the tasks that wait for it. */
export function taskDetails(task: BoardTask, board: readonly BoardTask[]): string {
  const blocks = board.filter((other) => other.blocked_by.includes(task.id)).map(({ id }) => id);
  const ids = (list: readonly string[]) => (list.length > 0 ? list.join(", ") : "none");
  return [
    `Task ${task.id}: ${task.subject}`,
    `Status: ${task.status}`,
    `Owner: ${task.owner ?? "none"}`,
    `Blocked by: ${ids(task.blocked_by)}`,
    `Blocks: ${ids(blocks)}`,
    `Description: ${task.description || "(none)"}`,
  ].join("\n");
}

/** The board in a few words: `3 tasks: 1 completed, 1 in progress, 1 pending`. */
export function boardSummary(tasks: readonly BoardTask[]): string {
  const counts = (["completed", "in_progress", "pending"] as const)
    .map((status) => [status, tasks.filter((task) => task.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status.replace("_", " ")}`);
  return counts.length > 0 ? `${plural(tasks.length, "task")}: ${counts.join(", ")}` : "no tasks";
}

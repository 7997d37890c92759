// One line about a background task for a person: where it stands, and how it ended. The
// renderer shows it when a task's notice goes to the model, the REPL when a task ends while
// the model is idle, and /tasks once per task.

import type { BackgroundTask } from "../core/background-task.js";

export function describeTask(task: BackgroundTask): string {
  const named = `${task.task_id} (bash ${JSON.stringify(task.command)})`;
  switch (task.status) {
    case "running":
      return `${named} is running; output in ${task.output_file}`;
    case "completed":
      return `${named} completed (exit code 0)`;
    case "failed":
      return task.exit_code === null
        ? `${named} failed`
        : `${named} failed with exit code ${task.exit_code}`;
    case "killed":
      return `${named} was stopped`;
    case "timed_out":
      return `${named} timed out`;
  }
}

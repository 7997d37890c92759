// task_stop (Claude Code's TaskStop, with its task_id): ends a background task and every
// process it started, SIGTERM first and SIGKILL for what is left after the grace period.

import { KILL_GRACE_MS } from "../tools/process-tree.js";
import type { Tool } from "../tools/tool.js";
import type { BackgroundTasks } from "./tasks.js";

export type TaskStopInput = { task_id: string };

export function createTaskStopTool(tasks: BackgroundTasks): Tool<TaskStopInput> {
  return {
    name: "task_stop",
    description:
      "Stop a background task started with bash's run_in_background, and every process it started " +
      `(SIGTERM, then SIGKILL after ${KILL_GRACE_MS / 1000} s). Its output file stays.`,
    inputSchema: {
      type: "object",
      properties: {
        task_id: { type: "string", description: "The task's id, such as bg_1." },
      },
      required: ["task_id"],
    },
    // @step tool.task_stop: task_stop stops the background task the model names.
    run: (input) => tasks.stop(input.task_id),
  };
}

// The board's four tools, Claude Code's TaskCreate, TaskList, TaskGet and TaskUpdate snake-cased
// (docs/tasks.md): task_create, task_list, task_get and task_update. Each works on the board the
// session has now, on behalf of the agent named `by` ("lead" for a lone session), and reports
// each change it made to `changed`, which the part turns into an event.

import { failure, success, type Tool } from "../tools/tool.js";
import type { Board } from "./board.js";
import { type BoardTask, TASK_STATUSES, type TaskStatus, type Updated } from "./board-rules.js";
import { taskDetails, taskLine } from "./board-text.js";
import type { CHAPTER } from "./chapter.js";

/** Named once, in the chapter's description. */
export type BoardToolName = (typeof CHAPTER.tools)[number];

export interface BoardToolsOptions {
  board(): Board;
  /** Who calls: the owner a task gets when this agent starts or completes it. */
  by: string;
  changed(change: { created: BoardTask } | { updated: Updated }): void;
}

type Input = Record<string, unknown>;

const ids = {
  type: "array",
  items: { type: "string" },
  description:
    'Ids of the tasks it waits for, such as ["1"]; it cannot start until they are completed.',
} as const;

export function createBoardTools(options: BoardToolsOptions): Record<BoardToolName, Tool<Input>> {
  const { board, by } = options;
  return {
    task_create: {
      name: "task_create",
      description:
        "Add a task to the task board shared by everyone working on this job. " +
        "It starts pending with no owner; blocked_by names the tasks it waits for.",
      inputSchema: {
        type: "object",
        properties: {
          subject: { type: "string", description: "A short title in the imperative: “Run tests”." },
          description: {
            type: "string",
            description: "What needs to be done, and how to tell it is.",
          },
          blocked_by: ids,
        },
        required: ["subject", "description"],
      },
      // It changes only agentloop's own board, never the workspace.
      isReadOnly: () => true,
      async run(input) {
        const blockedBy = input.blocked_by as unknown[] | undefined;
        // @step tool.task_create: task_create adds a pending task to the board, with what it waits for.
        const made = await board().create({
          subject: String(input.subject),
          description: String(input.description),
          blocked_by: blockedBy?.map(String),
        });
        if (!made.ok) return failure(made.error);
        options.changed({ created: made.value });
        return success(`Created ${taskLine(made.value)}.`);
      },
    },
    task_list: {
      name: "task_list",
      description:
        "List the task board: each task's id, status, subject, owner and the open tasks it waits for.",
      inputSchema: { type: "object", properties: {} },
      isReadOnly: () => true,
      // @step tool.task_list: task_list reads every task on the board.
      async run() {
        const tasks = await board().tasks();
        if (tasks.length === 0) return success("The board has no tasks yet; task_create adds one.");
        return success(tasks.map(taskLine).join("\n"));
      },
    },
    task_get: {
      name: "task_get",
      description:
        "Show one task of the board in full: description, owner, what it waits for and what waits for it.",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string", description: 'The task\'s id, such as "1".' } },
        required: ["id"],
      },
      isReadOnly: () => true,
      async run(input) {
        const id = String(input.id).replace(/^#/, "");
        // @step tool.task_get: task_get reads one task, with the tasks it waits for and blocks.
        const tasks = await board().tasks();
        const task = tasks.find((each) => each.id === id);
        if (!task)
          return failure(`There is no task ${id} on the board; task_list shows its tasks.`);
        return success(taskDetails(task, tasks));
      },
    },
    task_update: {
      name: "task_update",
      description:
        'Change a task of the board: status (pending, in_progress, completed), owner ("" for none), ' +
        "or blocked_by (the whole list of tasks it waits for). A task that waits for open tasks " +
        "cannot start; only its owner completes it; starting or completing an unowned task makes " +
        `it yours (you are "${by}").`,
      inputSchema: {
        type: "object",
        properties: {
          id: { type: "string", description: 'The task\'s id, such as "1".' },
          status: { type: "string", enum: [...TASK_STATUSES] },
          owner: { type: "string", description: "The agent who works on it." },
          blocked_by: ids,
        },
        required: ["id"],
      },
      isReadOnly: () => true,
      async run(input) {
        const status = input.status as TaskStatus | undefined;
        if (status !== undefined && !TASK_STATUSES.includes(status)) {
          return failure(`status must be one of ${TASK_STATUSES.join(", ")}.`);
        }
        const id = String(input.id).replace(/^#/, "");
        const change = {
          status,
          owner: input.owner as string | undefined,
          blocked_by: (input.blocked_by as unknown[] | undefined)?.map(String),
        };
        // @step tool.task_update: task_update changes a task under the board's rules, and says what it unblocked.
        const updated = await board().update(id, change, by);
        if (!updated.ok) return failure(updated.error);
        options.changed({ updated: updated.value });
        return success(updateReport(updated.value));
      },
    },
  };
}

function updateReport({ task, unblocked }: Updated): string {
  const freed = unblocked.map((each) => `task ${each.id} (${each.subject})`).join(", ");
  const after = task.status === "completed" ? ` Unblocked: ${freed || "none"}.` : "";
  return `Updated ${taskLine(task)}.${after}`;
}

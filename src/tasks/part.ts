// The task board's part (s10): task_create, task_list, task_get and task_update over a board on
// disk that every agent of a team shares (a lone session has its own, named by its session id,
// so --continue and --resume find it again). Each change is an event the terminal, the viewer
// and stream-json show; the board is restated beside a compaction's summary; /board shows it.

import type { PartEvent } from "../core/events.js";
import type { PartHost, SessionPart } from "../core/part.js";
import type { Tool } from "../core/tool.js";
import { type Board, openBoard } from "./board.js";
import { boardIdOf } from "./board-id.js";
import type { BoardTask } from "./board-rules.js";
import { boardSummary, taskLine } from "./board-text.js";
import { type BoardToolName, createBoardTools } from "./board-tools.js";

/** A lone session's name on its board: the owner of the tasks it starts or completes. */
export const LONE_OWNER = "lead";

export interface TasksPartOptions {
  /** The board tools the session offers, in this order. */
  offered: readonly BoardToolName[];
  /** The real environment: where agentloop's state directory is. */
  env: NodeJS.ProcessEnv;
  /** A board shared beyond this session (AGENTLOOP_TASK_LIST_ID); else the session's own. */
  shared?: string;
}

export function createTasksPart(options: TasksPartOptions): SessionPart {
  let host: PartHost | undefined;
  let opened: Board | undefined;
  // The session's board: its id follows the session (another after /clear or /resume).
  const board = (): Board => {
    if (!host) throw new Error("The task board is used before its session attached it.");
    const id = boardIdOf(options.shared, host.directory());
    if (opened?.id !== id) opened = openBoard(id, options.env);
    return opened;
  };
  const pending: PartEvent[] = [];
  const event = (name: string, line: string, task: BoardTask, unblocked: BoardTask[] = []) => {
    const data = { board: board().id, task, unblocked: unblocked.map(({ id }) => id) };
    pending.push({ type: "part", part: "tasks", name, line, data });
  };
  const made = createBoardTools({
    board,
    by: LONE_OWNER,
    changed(change) {
      if ("created" in change) {
        // @step tasks.task_created: A new task is on the board, in a file of its own.
        event("task_created", `Board: added ${taskLine(change.created)}`, change.created);
        return;
      }
      const { task, unblocked } = change.updated;
      const freed = unblocked.map(({ id }) => `#${id}`).join(", ");
      const line = `Board: ${taskLine(task)}${freed ? `; unblocked ${freed}` : ""}`;
      // @step tasks.task_updated: A task changed on the board; completing it unblocks those that waited.
      event("task_updated", line, task, unblocked);
    },
  });
  const tools: Tool[] = options.offered.map((name) => made[name] as Tool);
  const none: Tool[] = [];
  return {
    name: "tasks",
    // A subagent reports to its parent, which keeps the board (teammates will share it).
    tools: (offer) => (offer.forChild ? none : tools),
    attach(given) {
      host = given;
    },
    eventsAfter: (loopEvent) => (loopEvent.type === "tool_end" ? pending.splice(0) : []),
    restated() {
      const tasks = board().peek();
      if (tasks.length === 0) return null;
      return [
        `The task board (${boardSummary(tasks)}; task_list shows it as it is now):`,
        ...tasks.map(taskLine),
      ].join("\n");
    },
    commands: [
      {
        name: "/board",
        argument: "",
        help: "the task board of this session (task_create, task_update) and where it is kept",
        run() {
          const current = board();
          const tasks = current.peek();
          const head = `Task board ${current.id} (${boardSummary(tasks)}), kept in ${current.directory}`;
          return [head, ...tasks.map((task) => `  ${taskLine(task)}`)].join("\n");
        },
      },
    ],
  };
}

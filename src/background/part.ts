// The background tasks part (s11): bash's run_in_background starts a task here; the model is
// told when one ends (beside the next results, or with the next prompt), task_stop is offered
// from the first task on, every start and stop is an event, and the tasks end with the session.
// A task that ends while the session is idle is announced at once: the person sees it then,
// the model with the next prompt.

import type { LoopEvent } from "../core/events.js";
import type { PartHost, SessionPart } from "../core/part.js";
import type { Tool } from "../core/tool.js";
import { plural } from "../core/wording.js";
import { describeTask } from "./task-line.js";
import { createTaskStopTool } from "./task-stop.js";
import {
  type BackgroundTasks,
  type BackgroundTasksOptions,
  createBackgroundTasks,
} from "./tasks.js";

export interface BackgroundPart extends SessionPart {
  readonly tasks: BackgroundTasks;
}

/** `offerStop`: the session has bash, so its tasks can be stopped with task_stop. */
export function createBackgroundPart(
  options: BackgroundTasksOptions & { offerStop: boolean },
): BackgroundPart {
  const tasks = createBackgroundTasks(options);
  // The same arrays each time, as the toolbox asks of a list that did not change.
  const none: Tool[] = [];
  const taskStop = [createTaskStopTool(tasks) as Tool];
  let host: PartHost | undefined;
  tasks.onEnd((task) => {
    if (!host?.isIdle()) return;
    const line = `background task ${describeTask(task)}; the model is told with your next prompt`;
    host.announce([{ type: "part", part: "background", name: "task_ended", line }]);
  });
  return {
    name: "background",
    tasks,
    // Offered from the first task on: a session that starts none pays nothing for it.
    tools: (offer) =>
      options.offerStop && !offer.forChild && tasks.list().length > 0 ? taskStop : none,
    notices: tasks.notices,
    attach(given) {
      host = given;
    },
    // Tasks that ended while the model was idle are told with the prompt, after it.
    promptNotes: () => tasks.notices(),
    eventsAfter: (): LoopEvent[] => tasks.takeEvents(),
    async endWork() {
      await tasks.endAll();
      return tasks.takeEvents();
    },
    commands: [
      {
        name: "/tasks",
        argument: "",
        help: "list the background tasks of this session and where their output goes",
        run() {
          const list = tasks.list();
          if (list.length === 0) {
            return "No background tasks. The model starts one with bash's run_in_background.";
          }
          const running = list.filter((task) => task.status === "running").length;
          const lines = list.map((task) => `  ${describeTask(task)}`);
          return [`${plural(running, "task")} running:`, ...lines].join("\n");
        },
      },
    ],
  };
}

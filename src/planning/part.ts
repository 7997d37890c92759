// The planning part (s05): the todo list the model keeps with todo_write, and plan mode. It
// offers their tools, reminds the model of an unfinished list, restates the list and plan mode
// beside a compaction's summary, tells the model when plan mode begins or ends, and ends a run
// whose plan no one can approve.

import type { LoopEvent } from "../core/events.js";
import type { SessionPart } from "../core/part.js";
import type { PermissionMode } from "../core/permission-mode.js";
import type { Tool } from "../core/tool.js";
import type { ModeSwitch } from "../permissions/mode-switch.js";
import { createExitPlanModeTool, type ExitPlanModeOptions } from "./exit-plan-mode.js";
import type { PlanMode } from "./plan-mode.js";
import type { TodoList } from "./todo-list.js";
import { todoReminder } from "./todo-reminder.js";
import { createTodoWriteTool } from "./todo-write.js";
import { todosRestated } from "./todos.js";

export interface PlanningOptions {
  todos: TodoList;
  plan: PlanMode;
  modes: ModeSwitch;
  /** todo_write is offered from the start (chosen, or a local model's default). */
  offerTodos: boolean;
  /** The write tool plan mode needs for its plan file, when the session's tools lack one. */
  planWrite: Tool | null;
  approve?: ExitPlanModeOptions["approve"];
}

export interface PlanningPart extends SessionPart {
  /** Hears each change of the permission mode: from the first plan mode on, todo_write stays. */
  modeChanged(mode: PermissionMode): void;
}

export function createPlanningPart(options: PlanningOptions): PlanningPart {
  const { todos, plan, modes } = options;
  const todoWrite = createTodoWriteTool(todos) as Tool;
  const exitPlanMode = createExitPlanModeTool({ plan, modes, approve: options.approve }) as Tool;
  // The same arrays each time, as the toolbox asks of a list that did not change.
  const none: Tool[] = [];
  const afterPlanning = [todoWrite];
  const planning = [todoWrite, ...(options.planWrite ? [options.planWrite] : []), exitPlanMode];
  let planned = options.offerTodos || modes.current() === "plan";
  return {
    name: "planning",
    tools(offer) {
      // A child works on its parent's plan, never on a list of its own.
      if (offer.forChild) return none;
      if (offer.mode === "plan") return planning;
      return planned ? afterPlanning : none;
    },
    modeChanged(mode) {
      if (mode === "plan") planned = true;
    },
    limits: [plan.limit],
    reminders: [todoReminder(todos)],
    promptNotes() {
      const note = plan.noteFor(modes.current());
      return note ? [{ text: note }] : [];
    },
    restated() {
      const paragraphs = [todosRestated(todos.items()), plan.restated(modes.current())];
      const present = paragraphs.filter((paragraph) => paragraph !== null);
      return present.length > 0 ? present.join("\n\n") : null;
    },
    eventsAfter(event) {
      const changed = event.type === "tool_end" ? todos.takeChange() : null;
      return changed ? [{ type: "todos", todos: changed } satisfies LoopEvent] : [];
    },
    historyStarted(start) {
      // A new history: the model knows nothing of plan mode yet.
      if (start === "resume" || start === "clear") plan.told(null);
    },
  };
}

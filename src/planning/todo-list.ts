// The session's plan: set by the todo_write tool, read by the reminder, the compaction summary,
// the display and the JSON result. It is one small object so that each of them can be given it.

import type { TodoItem } from "../core/todo-item.js";

export interface TodoList {
  items(): readonly TodoItem[];
  /** Replaces the whole list (a todo_write call): a change to announce. */
  replace(items: readonly TodoItem[]): void;
  /** Sets the list of a session gone on with (the REPL's /resume, /clear): no change to announce. */
  restore(items: readonly TodoItem[]): void;
  /** The list if it was replaced since the last call, else null: once per change, for the event. */
  takeChange(): TodoItem[] | null;
}

export function createTodoList(initial: readonly TodoItem[] = []): TodoList {
  let items: readonly TodoItem[] = initial;
  let changed = false;
  return {
    items: () => items,
    replace(next) {
      items = [...next];
      changed = true;
    },
    restore(next) {
      items = [...next];
      changed = false;
    },
    takeChange() {
      if (!changed) return null;
      changed = false;
      return [...items];
    },
  };
}

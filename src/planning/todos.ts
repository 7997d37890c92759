// The plan as the model writes it with todo_write: checked whole (every call replaces the list),
// and shown back as a few short lines.

import { TODO_STATUSES, type TodoItem, type TodoStatus } from "../core/todo-item.js";

export const MAX_TODOS = 20;

/**
 * The list in a todo_write call's `todos`, or one sentence naming what is wrong with it. A JSON
 * string is accepted too: smaller models often send the array quoted, and the session file keeps
 * the call as they sent it (the toolbox unquotes it only for the run).
 */
export function parseTodos(todos: unknown): TodoItem[] | string {
  let list = todos;
  if (typeof list === "string") {
    try {
      list = JSON.parse(list);
    } catch {
      return '"todos" is a string that is not valid JSON; send the list as an array of items.';
    }
  }
  if (!Array.isArray(list)) return '"todos" must be an array of {content, status} items.';
  if (list.length > MAX_TODOS) {
    return `The list has ${list.length} items; keep it to at most ${MAX_TODOS} by merging small steps.`;
  }
  const items: TodoItem[] = [];
  for (const [index, entry] of list.entries()) {
    const item = parseItem(entry, index + 1);
    if (typeof item === "string") return item;
    items.push(item);
  }
  const current = items.filter((item) => item.status === "in_progress");
  if (current.length > 1) {
    return `${current.length} items are in_progress; at most one may be, so mark the others pending or completed.`;
  }
  return items;
}

function parseItem(entry: unknown, number: number): TodoItem | string {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    return `Item ${number} must be an object {content, status, activeForm?}.`;
  }
  const { content, status, activeForm } = entry as Record<string, unknown>;
  if (typeof content !== "string" || content.trim() === "") {
    return `Item ${number} needs a "content" string saying what to do.`;
  }
  if (!(TODO_STATUSES as readonly unknown[]).includes(status)) {
    return `Item ${number} has the status ${JSON.stringify(status)}; use one of ${TODO_STATUSES.join(", ")}.`;
  }
  if (activeForm !== undefined && typeof activeForm !== "string") {
    return `Item ${number}'s "activeForm" must be a string.`;
  }
  return {
    content: content.trim(),
    status: status as TodoStatus,
    ...(activeForm?.trim() ? { activeForm: activeForm.trim() } : {}),
  };
}

const MARKS: Record<TodoStatus, string> = {
  pending: "[ ]",
  in_progress: "[>]",
  completed: "[x]",
  cancelled: "[-]",
};

/** The list as the model reads it back: one line an item, its status as a mark. */
export function todosAsText(items: readonly TodoItem[]): string {
  if (items.length === 0) return "The todo list is empty.";
  return items.map((item) => `${MARKS[item.status]} ${item.content}`).join("\n");
}

/** True while some item is still pending or in progress. */
export function hasUnfinished(items: readonly TodoItem[]): boolean {
  return items.some((item) => item.status === "pending" || item.status === "in_progress");
}

/** The list restated beside a compaction's summary, or null when there is no list to keep. */
export function todosRestated(items: readonly TodoItem[]): string | null {
  if (items.length === 0) return null;
  return `[agentloop] Your todo list as it stood when the earlier turns were summarised (todo_write replaces it):\n${todosAsText(items)}`;
}

// The todo list as a person sees it under the todo_write call that set it: done items ticked
// and dimmed, the current one highlighted in its "under way" form, cancelled ones struck out.

import type { TodoItem } from "../core/todo-item.js";

type Paint = (code: string, text: string) => string;

export function todoLines(items: readonly TodoItem[], paint: Paint): string[] {
  if (items.length === 0) return [paint("2", "(the todo list is empty)")];
  return items.map((item) => todoLine(item, paint));
}

function todoLine(item: TodoItem, paint: Paint): string {
  switch (item.status) {
    case "completed":
      return paint("2", `✔ ${item.content}`);
    case "in_progress":
      return paint("1;36", `▶ ${item.activeForm ?? item.content}`);
    case "pending":
      return `☐ ${item.content}`;
    case "cancelled":
      return paint("2;9", `✘ ${item.content}`);
  }
}

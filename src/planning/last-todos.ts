// A resumed session's plan: the list of its last todo_write call that succeeded. The session
// file keeps every message, compacted or not, so the list is found there whatever was summarised.

import type { Message } from "../core/messages.js";
import type { TodoItem } from "../core/todo-item.js";
import { parseTodos } from "./todos.js";

export function lastTodoList(messages: readonly Message[]): TodoItem[] {
  const failed = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as Message;
    if (typeof message.content === "string") continue;
    for (const block of [...message.content].reverse()) {
      if (block.type === "tool_result" && block.is_error) failed.add(block.tool_use_id);
      if (block.type !== "tool_use" || block.name !== "todo_write" || failed.has(block.id))
        continue;
      const items = parseTodos((block.input as Record<string, unknown> | null)?.todos);
      if (typeof items !== "string") return items;
    }
  }
  return [];
}

// The todo list and the loaded skills as they stood at each request, kept up to date message by
// message. Reading them from the whole history at every request made a 10,000-message session
// take seconds to export; they change only when a message touches them, so only then are they
// read again.

import type { Message } from "../core/messages.js";
import type { TodoItem } from "../core/todo-item.js";
import { lastTodoList } from "../planning/last-todos.js";
import { skillsInHistory } from "../skills/skills-in-history.js";
import { isKnownBlock } from "./known-block.js";

export class StandingLists {
  /** Every message recorded so far, compacted or not: where both lists are read from. */
  private readonly recorded: Message[] = [];
  private todoCalls = 0;
  todos: TodoItem[] = [];
  skills: string[] = [];

  add(recorded: Message): void {
    // A damaged session may hold anything in a message's content: only known blocks are read.
    const blocks =
      typeof recorded.content === "string" ? [] : recorded.content.filter(isKnownBlock);
    const message =
      typeof recorded.content === "string"
        ? recorded
        : ({ ...recorded, content: blocks } as Message);
    this.recorded.push(message);
    const calls = blocks.filter(
      (block) => block.type === "tool_use" && block.name === "todo_write",
    );
    this.todoCalls += calls.length;
    // A failed result can undo a call's list, so results are read again once calls exist.
    const failed = blocks.some((block) => block.type === "tool_result" && block.is_error);
    if (calls.length > 0 || (failed && this.todoCalls > 0))
      this.todos = lastTodoList(this.recorded);
    if (message.role === "user" && skillsInHistory([message]).length > 0) {
      this.skills = skillsInHistory(this.recorded).map(([name]) => name);
    }
  }
}

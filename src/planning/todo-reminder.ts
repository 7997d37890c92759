// Reminded, not nagged: when the plan has unfinished items and the model went REMIND_AFTER turns
// without todo_write, one short note asks it to bring the list up to date. Whether that is due is
// read from the history itself (the last todo_write call, the last note), so a resumed session
// goes on counting where it stopped.

import { type Message, resultText } from "../core/messages.js";
import type { Reminder } from "../core/reminders.js";
import type { TodoList } from "./todo-list.js";
import { hasUnfinished, todosAsText } from "./todos.js";

export const REMIND_AFTER = 5;
const NOTE_START = "[agentloop: reminder: your todo list has unfinished items";

export function todoReminder(list: TodoList): Reminder {
  return (messages) => {
    if (!hasUnfinished(list.items()) || !turnsWithoutTodos(messages)) return null;
    return `${NOTE_START} and you have not updated it for ${REMIND_AFTER} turns. If it is out of date, call todo_write with the whole list; do not mention this note to the user.]\n${todosAsText(list.items())}`;
  };
}

/** True when the last REMIND_AFTER replies made no todo_write call and got no reminder. */
function turnsWithoutTodos(messages: readonly Message[]): boolean {
  let replies = 0;
  for (let index = messages.length - 1; index >= 0 && replies < REMIND_AFTER; index -= 1) {
    const message = messages[index] as Message;
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type === "tool_use" && block.name === "todo_write") return false;
      if (block.type === "tool_result" && resultText(block.content).includes(NOTE_START))
        return false;
    }
    if (message.role === "assistant") replies += 1;
  }
  return replies === REMIND_AFTER;
}

// The todo_write tool (chapter s05): the model keeps its plan as a list of items with a status,
// replacing the whole list at each call. It changes no file, so it runs in every permission mode.

import { failure, success, type Tool } from "../tools/tool.js";
import type { TodoList } from "./todo-list.js";
import { MAX_TODOS, parseTodos, todosAsText } from "./todos.js";

export type TodoWriteInput = { todos: unknown };

export function createTodoWriteTool(list: TodoList): Tool<TodoWriteInput> {
  return {
    name: "todo_write",
    description:
      "Keep your plan for a task of several steps as a todo list. Each call replaces the whole " +
      `list (at most ${MAX_TODOS} items). Mark an item in_progress before starting it (one at a ` +
      "time) and completed as soon as it is done; cancel items no longer needed.",
    inputSchema: {
      type: "object",
      properties: {
        todos: {
          type: "array",
          description: "The whole list, in order.",
          items: {
            type: "object",
            properties: {
              content: { type: "string", description: "What to do, in the imperative." },
              status: {
                type: "string",
                enum: ["pending", "in_progress", "completed", "cancelled"],
              },
              activeForm: {
                type: "string",
                description: "The same said as work under way, such as 'Running the tests'.",
              },
            },
            required: ["content", "status"],
          },
        },
      },
      required: ["todos"],
    },
    isReadOnly: () => true,
    async run(input) {
      const items = parseTodos(input.todos);
      if (typeof items === "string") return failure(items);
      // @step tool.todo_write: The model's todo list replaces the previous one whole.
      list.replace(items);
      return success(todosAsText(items));
    },
  };
}

// Rebuilding a resumed session's todo list from its messages: the last todo_write call that
// succeeded, as the model sent it.

import { describe, expect, it } from "vitest";
import type { Message } from "../src/core/messages.js";
import { lastTodoList } from "../src/planning/last-todos.js";

const call = (id: string, todos: unknown): Message => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name: "todo_write", input: { todos } }],
});
const result = (id: string, isError: boolean): Message => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: "", is_error: isError }],
});

describe("a resumed session's todo list", () => {
  const first = [{ content: "Read the code", status: "in_progress" }];
  const second = [{ content: "Read the code", status: "completed" }];

  it("is the list of the last todo_write call", () => {
    const messages = [call("a", first), result("a", false), call("b", second), result("b", false)];
    expect(lastTodoList(messages)).toEqual(second);
  });

  it("passes over a call whose result was an error (a deny rule refused it)", () => {
    const messages = [call("a", first), result("a", false), call("b", second), result("b", true)];
    expect(lastTodoList(messages)).toEqual(first);
  });

  it("reads a list the model sent as a JSON string", () => {
    const messages = [call("a", JSON.stringify(second)), result("a", false)];
    expect(lastTodoList(messages)).toEqual(second);
  });

  it("is empty without a todo_write call", () => {
    expect(lastTodoList([{ role: "user", content: "hello" }])).toEqual([]);
  });
});

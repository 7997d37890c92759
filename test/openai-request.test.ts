import { describe, expect, it } from "vitest";
import type { Message } from "../src/core/messages.js";
import { toChatMessages, toChatTools } from "../src/providers/openai-request.js";
import { problemWithRequest } from "./support/chat-request-validator.js";
import { bash, text } from "./support/scripted-provider.js";

const note = (value: string) => ({ type: "text" as const, text: value });

const result = (id: string, content: string, isError = false) => ({
  type: "tool_result" as const,
  tool_use_id: id,
  content,
  is_error: isError,
});

describe("writing our conversation as Chat Completions messages", () => {
  it("puts the system prompt first as a system message", () => {
    expect(toChatMessages("You are terse.", [{ role: "user", content: "hi" }])).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "hi" },
    ]);
  });

  it("leaves out an empty system prompt", () => {
    expect(toChatMessages("", [{ role: "user", content: "hi" }])).toEqual([
      { role: "user", content: "hi" },
    ]);
  });

  it("writes assistant text and tool calls as one message with JSON-string arguments", () => {
    const messages: Message[] = [
      { role: "user", content: "look" },
      { role: "assistant", content: [text("Looking."), bash("call_1", "ls")] },
      { role: "user", content: [result("call_1", "a.txt")] },
    ];
    expect(toChatMessages("", messages)[1]).toEqual({
      role: "assistant",
      content: "Looking.",
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "bash", arguments: '{"command":"ls"}' },
        },
      ],
    });
  });

  it("sends content null for an assistant message that only calls tools", () => {
    const messages: Message[] = [{ role: "assistant", content: [bash("call_1", "ls")] }];
    expect(toChatMessages("", messages)[0]).toMatchObject({ role: "assistant", content: null });
  });

  it("gives every tool result its own tool message, in order, then the user's text", () => {
    const messages: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [bash("a", "echo 1"), bash("b", "false")] },
      {
        role: "user",
        content: [
          result("a", "1"),
          result("b", "exit code 1", true),
          note("Also check the tests."),
          note("Thanks."),
        ],
      },
    ];
    expect(toChatMessages("", messages).slice(2)).toEqual([
      { role: "tool", tool_call_id: "a", content: "1" },
      { role: "tool", tool_call_id: "b", content: "exit code 1" },
      { role: "user", content: "Also check the tests.\n\nThanks." },
    ]);
  });

  it("moves text written before the results after them, so the calls are answered first", () => {
    const messages: Message[] = [
      { role: "assistant", content: [bash("a", "ls")] },
      { role: "user", content: [note("Note: slow disk."), result("a", "x")] },
    ];
    expect(toChatMessages("", messages).slice(1)).toEqual([
      { role: "tool", tool_call_id: "a", content: "x" },
      { role: "user", content: "Note: slow disk." },
    ]);
  });

  it('sends a call whose input was not a JSON object with arguments "{}"', () => {
    const messages: Message[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "a", name: "bash", input: '{"command": ' }],
      },
      { role: "user", content: [result("a", "Invalid input for bash", true)] },
      { role: "assistant", content: [text("Sorry.")] },
    ];
    const chat = toChatMessages("", messages);
    expect(chat[1]).toMatchObject({ tool_calls: [{ function: { arguments: "{}" } }] });
    expect(problemWithRequest({ model: "m", stream: true, messages: chat })).toBeNull();
  });

  it("writes tool definitions as functions with their JSON schema as parameters", () => {
    const schema = {
      type: "object" as const,
      properties: { path: { type: "string" } },
      required: ["path"],
    };
    expect(
      toChatTools([{ name: "read", description: "Read a file.", input_schema: schema }]),
    ).toEqual([
      {
        type: "function",
        function: { name: "read", description: "Read a file.", parameters: schema },
      },
    ]);
  });
});

describe("the fake server's strict request check", () => {
  const call = (id: string) => ({
    id,
    type: "function",
    function: { name: "bash", arguments: '{"command":"ls"}' },
  });
  const request = (messages: object[]) => ({ model: "m", stream: true, messages });

  it("accepts tool calls answered by tool messages", () => {
    const messages = [
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "1" },
      { role: "tool", tool_call_id: "b", content: "2" },
      { role: "user", content: "next" },
    ];
    expect(problemWithRequest(request(messages))).toBeNull();
  });

  it("rejects a tool call left unanswered before the next message", () => {
    const messages = [
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "1" },
      { role: "user", content: "next" },
    ];
    expect(problemWithRequest(request(messages))).toMatch(/did not have response messages: b$/);
  });

  it("rejects a tool message that answers no waiting call", () => {
    const messages = [
      { role: "assistant", content: null, tool_calls: [call("a")] },
      { role: "tool", tool_call_id: "a", content: "1" },
      { role: "tool", tool_call_id: "a", content: "again" },
    ];
    expect(problemWithRequest(request(messages))).toMatch(/must be a response to a preceeding/);
  });

  it("rejects arguments that are not a JSON object, as Ollama does", () => {
    const broken = { ...call("a"), function: { name: "bash", arguments: "{oops" } };
    const messages = [
      { role: "assistant", content: null, tool_calls: [broken] },
      { role: "tool", tool_call_id: "a", content: "1" },
    ];
    expect(problemWithRequest(request(messages))).toMatch(/must be a JSON object/);
  });

  it("puts a turn's images in one user message after its tool messages, before the user's text", () => {
    const png = { type: "image" as const, mediaType: "image/png" as const, data: "iVBORw0K" };
    const messages: Message[] = [
      { role: "user", content: "look" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "c1", name: "read", input: {} },
          { type: "tool_use", id: "c2", name: "read", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c1", content: [note("a.png: PNG, 1x1"), png, png] },
          result("c2", "plain text"),
          note("and then?"),
        ],
      },
    ];
    expect(toChatMessages("", messages).slice(2)).toEqual([
      {
        role: "tool",
        tool_call_id: "c1",
        content: "a.png: PNG, 1x1\n[the 2 images of this result are in the next user message]",
      },
      { role: "tool", tool_call_id: "c2", content: "plain text" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images from tool call c1:" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K" } },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K" } },
        ],
      },
      { role: "user", content: "and then?" },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import type { Message } from "../src/core/messages.js";
import { createOpenAIProvider, type OpenAIProviderOptions } from "../src/providers/openai.js";
import type { ToolDefinition } from "../src/providers/provider.js";
import { drain } from "./support/drain.js";
import { type FakeOpenAI, type FakeTurn, serveOpenAI } from "./support/fake-openai-server.js";
import { bash, text } from "./support/scripted-provider.js";

const bashTool: ToolDefinition = {
  name: "bash",
  description: "Run a command.",
  input_schema: { type: "object", properties: { command: { type: "string" } } },
};

function ask(
  server: FakeOpenAI,
  options: Partial<OpenAIProviderOptions> = {},
  messages: Message[] = [{ role: "user", content: "hi" }],
  signal = new AbortController().signal,
) {
  const provider = createOpenAIProvider({
    apiKey: "sk-test",
    baseURL: server.url,
    model: "fake-model",
    ...options,
  });
  return drain(provider.stream({ system: "Be brief.", messages, tools: [bashTool], signal }));
}

describe("the OpenAI provider, streaming through the SDK", () => {
  it("streams text as it arrives and returns it as one text block", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [text("Hello there, how are you?")] },
    ]);
    const { events, result } = await ask(server);
    expect(events.length).toBeGreaterThan(3);
    expect(events.map((event) => (event.type === "text_delta" ? event.text : "")).join("")).toBe(
      "Hello there, how are you?",
    );
    expect(result.message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Hello there, how are you?" }],
      model: "fake-model",
    });
    expect(result).toMatchObject({ stopReason: "end_turn", rawStopReason: "stop" });
  });

  it("sends the system prompt, the tools as functions, and asks for usage", async () => {
    const server = await serveOpenAI([{ kind: "reply", content: [text("ok")] }]);
    await ask(server);
    const { body, headers } = server.requests[0] ?? { body: {}, headers: {} };
    expect(headers.authorization).toBe("Bearer sk-test");
    expect(body).toMatchObject({
      model: "fake-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "bash",
            description: "Run a command.",
            parameters: bashTool.input_schema,
          },
        },
      ],
    });
    expect(body).not.toHaveProperty("max_tokens");
  });

  it("sends no Authorization header to a server that needs no key", async () => {
    const server = await serveOpenAI([{ kind: "reply", content: [text("ok")] }]);
    await ask(server, { apiKey: null });
    expect(server.requests[0]?.headers).not.toHaveProperty("authorization");
  });

  it("sends max_tokens only when it is configured", async () => {
    const server = await serveOpenAI([{ kind: "reply", content: [text("ok")] }]);
    await ask(server, { maxTokens: 123 });
    expect(server.requests[0]?.body.max_tokens).toBe(123);
  });

  it("maps usage, counting cached prompt tokens apart from the uncached ones", async () => {
    const usage = { prompt_tokens: 900, completion_tokens: 42, cached_tokens: 512 };
    const server = await serveOpenAI([{ kind: "reply", content: [text("ok")], usage }]);
    const { result } = await ask(server);
    expect(result.usage).toEqual({
      input_tokens: 388,
      output_tokens: 42,
      cache_read_input_tokens: 512,
      cache_creation_input_tokens: 0,
    });
  });

  it("joins tool-call arguments sent in fragments into the call's input", async () => {
    const command = "grep -rn 'needle' src | head -20";
    const server = await serveOpenAI([
      { kind: "reply", content: [text("Searching."), bash("call_abc", command)] },
    ]);
    const { result } = await ask(server);
    expect(result.message.content).toEqual([
      { type: "text", text: "Searching." },
      { type: "tool_use", id: "call_abc", name: "bash", input: { command } },
    ]);
    expect(result).toMatchObject({ stopReason: "tool_use", rawStopReason: "tool_calls" });
  });

  it("keeps several tool calls apart and in order", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [bash("a", "echo 1"), bash("b", "echo 2")] },
    ]);
    const { result } = await ask(server);
    expect(result.message.content).toEqual([bash("a", "echo 1"), bash("b", "echo 2")]);
  });

  it("keeps the id and name when later chunks carry an empty name and no id", async () => {
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [bash("a", "ls -la"), bash("b", "pwd")],
        quirks: ["empty_name_later"],
      },
    ]);
    const { result } = await ask(server);
    expect(result.message.content).toEqual([bash("a", "ls -la"), bash("b", "pwd")]);
  });

  it("does not double a name that every chunk repeats", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [bash("a", "echo repeated")], quirks: ["repeat_id_and_name"] },
    ]);
    const { result } = await ask(server);
    expect(result.message.content).toEqual([bash("a", "echo repeated")]);
  });

  it("reads calls that arrive whole, one chunk each", async () => {
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [bash("a", "echo 1"), bash("b", "echo 2")],
        quirks: ["whole_calls"],
      },
    ]);
    const { result } = await ask(server);
    expect(result.message.content).toEqual([bash("a", "echo 1"), bash("b", "echo 2")]);
  });

  it("tells parallel calls apart by id when a server sends them all at index 0", async () => {
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [bash("a", "echo 1"), bash("b", "echo 2")],
        quirks: ["all_at_index_zero"],
      },
    ]);
    const { result } = await ask(server);
    expect(result.message.content).toEqual([bash("a", "echo 1"), bash("b", "echo 2")]);
  });

  it("gives calls without ids stable ids of its own, unique in the conversation", async () => {
    const turn: FakeTurn = {
      kind: "reply",
      content: [bash("ignored", "echo 1"), bash("ignored", "echo 2")],
      quirks: ["no_ids"],
    };
    const server = await serveOpenAI([turn, turn]);
    const first = await ask(server);
    const again = await ask(server);
    const ids = first.result.message.content.map((block) => block.type === "tool_use" && block.id);
    expect(ids).toEqual([
      expect.stringMatching(/^call_[0-9a-f]{12}_0$/),
      expect.stringMatching(/^call_[0-9a-f]{12}_1$/),
    ]);
    expect(ids[0]?.toString().slice(0, -2)).toBe(ids[1]?.toString().slice(0, -2));
    expect(again.result.message).toEqual(first.result.message);
  });

  it("returns tool calls that come with finish_reason stop, so the loop still runs them", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [bash("a", "echo hi")], finish: "stop" },
    ]);
    const { result } = await ask(server);
    expect(result.message.content).toEqual([bash("a", "echo hi")]);
    expect(result.stopReason).toBe("end_turn");
  });

  it('reads "" arguments of a parameterless tool as an empty input', async () => {
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [{ type: "tool_use", id: "call_1", name: "list_todos", partialJson: "" }],
      },
    ]);
    const { result } = await ask(server);
    expect(result.message.content).toEqual([
      { type: "tool_use", id: "call_1", name: "list_todos", input: {} },
    ]);
  });

  it("keeps invalid argument JSON as the raw string, for the toolbox to reject", async () => {
    const broken = '{"command": "ls", }';
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [{ type: "tool_use", id: "call_1", name: "bash", partialJson: broken }],
      },
    ]);
    const { result } = await ask(server);
    expect(result.message.content).toEqual([
      { type: "tool_use", id: "call_1", name: "bash", input: broken },
    ]);
  });

  it.each([
    ["length", "max_tokens"],
    ["content_filter", "refusal"],
    ["something_new", "unknown"],
  ])("maps finish_reason %s to stop reason %s", async (finish, stopReason) => {
    const server = await serveOpenAI([{ kind: "reply", content: [text("partial")], finish }]);
    const { result } = await ask(server);
    expect(result).toMatchObject({ stopReason, rawStopReason: finish });
  });

  it("asks again after an empty reply and says so with a retry event", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [] },
      { kind: "no_chunks" },
      { kind: "reply", content: [text("ok")] },
    ]);
    const { events, result } = await ask(server);
    expect(server.requests).toHaveLength(3);
    expect(events.filter((event) => event.type === "retry")).toEqual([
      { type: "retry", attempt: 2, delayMs: 0, reason: "the model sent an empty reply" },
      { type: "retry", attempt: 3, delayMs: 0, reason: "the model sent an empty reply" },
    ]);
    expect(result.message.content).toEqual([text("ok")]);
  });

  it("gives up with an empty_reply error after two more empty replies", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [] },
      { kind: "reply", content: [text("  \n")] },
      { kind: "no_chunks" },
    ]);
    await expect(ask(server)).rejects.toMatchObject({
      name: "ProviderError",
      kind: "empty_reply",
      message:
        'The model "fake-model" sent an empty reply 3 times in a row (no text and no tool calls).',
    });
    expect(server.requests).toHaveLength(3);
  });

  it("stops waiting and throws when the signal is aborted mid-stream", async () => {
    const server = await serveOpenAI([
      { kind: "stall", content: [text("a long answer that never ends")] },
    ]);
    const controller = new AbortController();
    const provider = createOpenAIProvider({ baseURL: server.url, model: "fake-model" });
    const stream = provider.stream({
      system: "",
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      signal: controller.signal,
    });
    expect((await stream.next()).value).toMatchObject({ type: "text_delta" });
    controller.abort();
    await expect(drain(stream)).rejects.toThrow(/abort/i);
  });
});

// The Responses provider through the official SDK, over real HTTP and SSE, against the fake
// OpenAI server's /v1/responses, which checks every request the way OpenAI does (see
// responses-request-validator.ts) and sends reasoning items with encrypted content.

import { describe, expect, it, onTestFinished } from "vitest";
import type { AssistantMessage, Message, OpaqueBlock } from "../src/core/messages.js";
import {
  createResponsesProvider,
  type ResponsesProviderOptions,
} from "../src/providers/openai-responses.js";
import type { ToolDefinition } from "../src/providers/provider.js";
import { drain } from "./support/drain.js";
import { FAKE_REASONING_SUMMARY } from "./support/fake-openai-responses.js";
import {
  type FakeOpenAI,
  type FakeTurn,
  serveOpenAI,
  startFakeOpenAI,
} from "./support/fake-openai-server.js";
import { bash, text } from "./support/scripted-provider.js";

const MODEL = "gpt-6.1-sol";

const bashTool: ToolDefinition = {
  name: "bash",
  description: "Run a command.",
  input_schema: {
    type: "object",
    properties: { command: { type: "string" }, timeout: { type: "number" } },
    required: ["command"],
  },
};

function ask(
  server: FakeOpenAI,
  messages: Message[] = [{ role: "user", content: "hi" }],
  options: Partial<ResponsesProviderOptions> = {},
) {
  const provider = createResponsesProvider({
    apiKey: "sk-test",
    baseURL: server.url,
    model: MODEL,
    retryPolicy: { maxAttempts: 1 },
    ...options,
  });
  const signal = new AbortController().signal;
  return drain(provider.stream({ system: "Be brief.", messages, tools: [bashTool], signal }));
}

const reasoningOf = (message: AssistantMessage) =>
  message.content.filter((block): block is OpaqueBlock => block.type === "opaque");

describe("the Responses provider, streaming through the SDK", () => {
  it("streams the answer as text and the reasoning summary as thinking, never mixed", async () => {
    const server = await serveOpenAI([{ kind: "reply", content: [text("Hello there, friend.")] }]);
    const { events, result } = await ask(server);
    const shown = (type: string) =>
      events.map((event) => (event.type === type && "text" in event ? event.text : "")).join("");
    expect(shown("text_delta")).toBe("Hello there, friend.");
    expect(shown("thinking_delta")).toBe(FAKE_REASONING_SUMMARY);
    expect(result).toMatchObject({ stopReason: "end_turn", rawStopReason: "completed" });
    expect(result.message.model).toBe(MODEL);
    const [reasoning, answer] = result.message.content;
    expect(reasoning).toMatchObject({
      type: "opaque",
      protocol: "responses",
      thinking: FAKE_REASONING_SUMMARY,
      item: { type: "reasoning", encrypted_content: expect.stringMatching(/^gAAAAA/) },
    });
    expect(answer).toEqual(text("Hello there, friend."));
  });

  it("asks statelessly: instructions, input items, strict-free tools, no storage, encrypted reasoning", async () => {
    const server = await serveOpenAI([{ kind: "reply", content: [text("ok")] }]);
    await ask(server, undefined, { effort: "high", maxTokens: 4000 });
    const request = server.requests[0];
    expect(request?.path).toBe("/v1/responses");
    expect(request?.headers.authorization).toBe("Bearer sk-test");
    expect(request?.body).toEqual({
      model: MODEL,
      instructions: "Be brief.",
      input: [{ type: "message", role: "user", content: "hi" }],
      tools: [
        {
          type: "function",
          name: "bash",
          description: "Run a command.",
          parameters: bashTool.input_schema,
          strict: false,
        },
      ],
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
      reasoning: { summary: "auto", effort: "high" },
      max_output_tokens: 4000,
    });
  });

  it("sends no reasoning options to a model that does not reason", async () => {
    const server = await serveOpenAI([{ kind: "reply", content: [text("ok")] }]);
    await ask(server, undefined, { model: "gpt-4.1" });
    expect(server.requests[0]?.body).not.toHaveProperty("reasoning");
    expect(server.requests[0]?.body).not.toHaveProperty("include");
  });

  it("sends each reasoning item back unmodified, before the call it led to, with the result", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [text("Listing."), bash("call_1", "ls")] },
      { kind: "reply", content: [text("Two files.")] },
    ]);
    const first = await ask(server);
    expect(first.result.stopReason).toBe("tool_use");
    const history: Message[] = [
      { role: "user", content: "hi" },
      first.result.message,
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "call_1", content: "a\nb" }],
      },
    ];
    const second = await ask(server, history);
    expect(server.requests.map((request) => request.status)).toEqual([200, 200]);
    expect(second.result.message.content.at(-1)).toEqual(text("Two files."));
    const [reasoning] = reasoningOf(first.result.message);
    expect(server.requests[1]?.body.input).toEqual([
      { type: "message", role: "user", content: "hi" },
      reasoning?.item,
      { type: "message", role: "assistant", content: "Listing." },
      { type: "function_call", call_id: "call_1", name: "bash", arguments: '{"command":"ls"}' },
      { type: "function_call_output", call_id: "call_1", output: "a\nb" },
    ]);
  });

  it("is refused, in OpenAI's words, when a reasoning item comes back changed", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [text("Thinking done.")] },
      { kind: "reply", content: [text("unused")] },
    ]);
    const first = await ask(server);
    const [reasoning] = reasoningOf(first.result.message);
    const tampered: AssistantMessage = {
      ...first.result.message,
      content: [
        {
          ...(reasoning as OpaqueBlock),
          item: { ...reasoning?.item, encrypted_content: "gAAAAAx" },
        },
        text("Thinking done."),
      ],
    };
    const history: Message[] = [
      { role: "user", content: "hi" },
      tampered,
      { role: "user", content: "and now?" },
    ];
    await expect(ask(server, history)).rejects.toThrow(
      `The encrypted content for item ${reasoning?.item.id} could not be verified`,
    );
  });

  it("leaves another model's reasoning, and other protocols' thinking, out of the request", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [text("first")] },
      { kind: "reply", content: [text("second")] },
    ]);
    const first = await ask(server, undefined, { model: "gpt-6-sol" });
    const history: Message[] = [
      { role: "user", content: "hi" },
      first.result.message,
      { role: "user", content: "again" },
      {
        role: "assistant",
        content: [{ type: "thinking", thinking: "hmm", signature: "sig" }, text("claude said")],
        model: "claude-sonnet-5-5",
      },
      { role: "user", content: "and you?" },
    ];
    await ask(server, history);
    expect(server.requests[1]?.body.input).toEqual([
      { type: "message", role: "user", content: "hi" },
      { type: "message", role: "assistant", content: "first" },
      { type: "message", role: "user", content: "again" },
      { type: "message", role: "assistant", content: "claude said" },
      { type: "message", role: "user", content: "and you?" },
    ]);
  });

  it("keeps parallel calls in the order the model issued them", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [bash("call_a", "echo 1"), bash("call_b", "echo 2")] },
    ]);
    const { result } = await ask(server);
    const calls = result.message.content.filter((block) => block.type === "tool_use");
    expect(calls).toEqual([bash("call_a", "echo 1"), bash("call_b", "echo 2")]);
  });

  it("keeps arguments that are not JSON as the raw string, for the toolbox to refuse", async () => {
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [{ type: "tool_use", id: "call_x", name: "bash", partialJson: '{"command": ls}' }],
      },
    ]);
    const { result } = await ask(server);
    expect(result.message.content.at(-1)).toEqual({
      type: "tool_use",
      id: "call_x",
      name: "bash",
      input: '{"command": ls}',
    });
  });

  it("reports a call cut off by max_output_tokens as max_tokens, its arguments unfinished", async () => {
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [bash("call_cut", "echo a long command")],
        stopReason: "max_tokens",
      },
    ]);
    const { result } = await ask(server);
    expect(result).toMatchObject({
      stopReason: "max_tokens",
      rawStopReason: "incomplete (max_output_tokens)",
    });
    const call = result.message.content.at(-1);
    expect(call).toMatchObject({ type: "tool_use", id: "call_cut" });
    expect(typeof (call as { input: unknown }).input).toBe("string");
  });

  it("shows a refusal as the model's words and stops with refusal", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [text("I can't help with that.")], stopReason: "refusal" },
    ]);
    const { result } = await ask(server);
    expect(result.stopReason).toBe("refusal");
    expect(result.message.content.at(-1)).toEqual(text("I can't help with that."));
  });

  it("counts cached input tokens as cache reads, apart from the uncached ones", async () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 800 };
    const server = await serveOpenAI([{ kind: "reply", content: [text("ok")], usage }]);
    const { result } = await ask(server);
    expect(result.usage).toEqual({
      input_tokens: 200,
      output_tokens: 50,
      cache_read_input_tokens: 800,
      cache_creation_input_tokens: 0,
    });
  });
});

describe("the Responses provider's failures", () => {
  const answer: FakeTurn = { kind: "reply", content: [text("the answer")] };
  const fast = { initialDelayMs: 10, maxDelayMs: 20, idleTimeoutMs: 500 };
  const retried = (server: FakeOpenAI) => ask(server, undefined, { retryPolicy: fast });

  it.each<[string, FakeTurn]>([
    ["a 500", { kind: "http_error", status: 500, message: "The server had an error" }],
    [
      "a connection reset in the middle of a call",
      { kind: "reset", content: [bash("c", "ls -la")] },
    ],
    [
      "a stream that stalls in the middle of a call",
      { kind: "stall", content: [bash("c", "ls -la")] },
    ],
    [
      "an error event after the 200",
      { kind: "sse_error", message: "boom", content: [text("par")] },
    ],
    [
      "response.failed with server_error",
      { kind: "failed", code: "server_error", message: "overloaded", content: [text("partial")] },
    ],
  ])("tries again after %s", async (_, fault) => {
    const server = await serveOpenAI([fault, answer]);
    const { events, result } = await retried(server);
    expect(events.find((event) => event.type === "retry")).toMatchObject({ attempt: 2 });
    expect(result.message.content.at(-1)).toEqual(text("the answer"));
    expect(server.requests).toHaveLength(2);
  });

  it("waits as long as a 429's retry-after asks", async () => {
    const limited: FakeTurn = {
      kind: "http_error",
      status: 429,
      message: "Rate limit reached",
      headers: { "retry-after": "0.3" },
    };
    const server = await serveOpenAI([limited, answer]);
    const { events } = await retried(server);
    expect(events[0]).toMatchObject({ type: "retry", delayMs: 300 });
    const [first, second] = server.requests;
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(290);
  });

  it("does not try again when the reply failed for a reason retrying cannot fix", async () => {
    const failed: FakeTurn = {
      kind: "failed",
      code: "invalid_prompt",
      message: "Invalid prompt: flagged",
      content: [text("x")],
    };
    const server = await serveOpenAI([failed, answer]);
    await expect(retried(server)).rejects.toThrow(
      "The openai server stopped the reply (invalid_prompt: Invalid prompt: flagged).",
    );
    expect(server.requests).toHaveLength(1);
  });

  it("recognises context_length_exceeded as too long, for compaction to recover", async () => {
    const tooLong: FakeTurn = {
      kind: "http_error",
      status: 400,
      code: "context_length_exceeded",
      message: "Your input exceeds the context window of this model.",
    };
    const server = await serveOpenAI([tooLong]);
    await expect(ask(server)).rejects.toMatchObject({ kind: "context_too_long" });
  });

  it("recognises a request over the window turned away inside its 200 stream, asking nothing again", async () => {
    const server = await startFakeOpenAI({ contextWindow: 10 });
    onTestFinished(() => server.close());
    const error = await ask(server, undefined, { retryPolicy: fast }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: "context_too_long",
      message:
        "The conversation is too long for the model's context window (Your input exceeds the context window of this model. Please adjust your input and try again).",
    });
    expect(server.requests.map((request) => request.status)).toEqual([200]);
  });

  it("stops at once when the user interrupts, asking nothing again", async () => {
    const server = await serveOpenAI([{ kind: "stall", content: [text("Thinking about it")] }]);
    const controller = new AbortController();
    const provider = createResponsesProvider({ apiKey: "k", baseURL: server.url, model: MODEL });
    const stream = provider.stream({
      system: "",
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      signal: controller.signal,
    });
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: "thinking_delta" });
    controller.abort();
    await expect(drain(stream)).rejects.toThrow();
    expect(server.requests).toHaveLength(1);
  });

  it("runs the hosted web search on OpenAI's own API, and not on another server's Responses API", () => {
    const options = { apiKey: "k", baseURL: "http://127.0.0.1:9/v1", model: MODEL };
    expect(createResponsesProvider(options).webSearch).toBe(true);
    expect(createResponsesProvider({ ...options, name: "openai" }).webSearch).toBe(true);
    expect(createResponsesProvider({ ...options, name: "openrouter" }).webSearch).toBe(false);
  });
});

// The fake OpenAI server holds requests to the rules the real API enforces, in its words: a
// test passing against it means something only if it refuses what OpenAI refuses. Plain HTTP
// here, so that each rule is tested without the provider that normally keeps to it.

import { describe, expect, it, onTestFinished } from "vitest";
import { createOpenAIProvider } from "../src/providers/openai.js";
import { drain } from "./support/drain.js";
import { type FakeOpenAI, serveOpenAI, startFakeOpenAI } from "./support/fake-openai-server.js";
import { OVER_WINDOW_MESSAGE } from "./support/fake-responses-overflow.js";
import { bash, text } from "./support/scripted-provider.js";

const MODEL = "gpt-6.1-sol";

async function post(server: FakeOpenAI, path: string, body: object) {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

const ask = (server: FakeOpenAI, input: object[]) =>
  post(server, "/responses", {
    model: MODEL,
    input,
    stream: true,
    store: false,
    include: ["reasoning.encrypted_content"],
  });

/** The items of a streamed reply, as its response.output_item.done events carry them. */
function doneItems(sse: string): Record<string, unknown>[] {
  return sse
    .split("\n\n")
    .filter((frame) => frame.startsWith("event: response.output_item.done"))
    .map((frame) => JSON.parse(frame.slice(frame.indexOf("data: ") + 6)).item);
}

const user = (content: string) => ({ type: "message", role: "user", content });
const call = (callId: string) => ({
  type: "function_call",
  call_id: callId,
  name: "bash",
  arguments: '{"command":"ls"}',
});
const output = (callId: string) => ({
  type: "function_call_output",
  call_id: callId,
  output: "ok",
});

describe("the fake Responses endpoint", () => {
  it("streams a reasoning item with encrypted content, then the reply's items, ending completed", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [text("hi"), bash("call_1", "ls")] },
    ]);
    const { status, text: sse } = await ask(server, [user("hello")]);
    expect(status).toBe(200);
    expect(doneItems(sse).map((item) => item.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
    ]);
    expect(doneItems(sse)[0]?.encrypted_content).toMatch(/^gAAAAA/);
    expect(sse.trimEnd().split("\n\n").at(-1)).toMatch(/^event: response.completed\n/);
  });

  it("refuses a function_call_output that answers no call", async () => {
    const server = await serveOpenAI([]);
    const { status, text: body } = await ask(server, [user("hi"), output("call_9")]);
    expect(status).toBe(400);
    expect(body).toContain("No tool call found for function call output with call_id call_9.");
  });

  it("refuses a function_call that has no output", async () => {
    const server = await serveOpenAI([]);
    const { status, text: body } = await ask(server, [user("hi"), call("call_1"), user("next")]);
    expect(status).toBe(400);
    expect(body).toContain("No tool output found for function call call_1.");
  });

  it("refuses an item sent back under its id without the reasoning item it came with", async () => {
    const server = await serveOpenAI([{ kind: "reply", content: [bash("call_1", "ls")] }]);
    const [reasoning, functionCall] = doneItems((await ask(server, [user("hi")])).text);
    const { status, text: body } = await ask(server, [
      user("hi"),
      functionCall as object,
      output("call_1"),
    ]);
    expect(status).toBe(400);
    expect(body).toContain(
      `Item '${functionCall?.id}' of type 'function_call' was provided without its required 'reasoning' item: '${reasoning?.id}'.`,
    );
  });

  it("refuses a reasoning item with nothing after it", async () => {
    const server = await serveOpenAI([{ kind: "reply", content: [text("done")] }]);
    const [reasoning] = doneItems((await ask(server, [user("hi")])).text);
    const { status, text: body } = await ask(server, [user("hi"), reasoning as object]);
    expect(status).toBe(400);
    expect(body).toContain(
      `Item '${reasoning?.id}' of type 'reasoning' was provided without its required following item.`,
    );
  });

  it("refuses a reasoning item without its encrypted content, since nothing is stored", async () => {
    const server = await serveOpenAI([{ kind: "reply", content: [text("done")] }]);
    const [reasoning] = doneItems((await ask(server, [user("hi")])).text);
    const { encrypted_content: _, ...bare } = reasoning as Record<string, unknown>;
    const { text: body } = await ask(server, [
      user("hi"),
      bare,
      { type: "message", role: "assistant", content: "done" },
    ]);
    expect(body).toContain(
      `Item with id '${reasoning?.id}' not found. Items are not persisted when`,
    );
  });

  it("refuses reasoning written for another model", async () => {
    const server = await serveOpenAI([{ kind: "reply", content: [text("done")] }]);
    const [reasoning] = doneItems((await ask(server, [user("hi")])).text);
    const { status, text: body } = await post(server, "/responses", {
      model: "gpt-6-sol",
      stream: true,
      input: [
        user("hi"),
        reasoning,
        { type: "message", role: "assistant", content: "done" },
        user("more"),
      ],
    });
    expect(status).toBe(400);
    expect(body).toContain(
      `The encrypted content for item ${reasoning?.id} could not be verified.`,
    );
  });

  it("turns away a request over the window inside a 200 stream: an error event, then response.failed", async () => {
    const server = await startFakeOpenAI({ contextWindow: 10 });
    onTestFinished(() => server.close());
    server.script([{ kind: "reply", content: [text("never sent")] }]);
    const { status, text: sse } = await ask(server, [user("a request longer than ten tokens")]);
    expect(status).toBe(200);
    const events = sse
      .trimEnd()
      .split("\n\n")
      .map((frame) => JSON.parse(frame.slice(frame.indexOf("data: ") + 6)));
    expect(events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "error",
      "response.failed",
    ]);
    const overflow = { code: "context_length_exceeded", message: OVER_WINDOW_MESSAGE };
    expect(events[2].error).toEqual({ type: "invalid_request_error", ...overflow, param: "input" });
    expect(events[3].response).toMatchObject({ status: "failed", error: overflow });
    expect(server.requests[0]?.rejection).toBe(OVER_WINDOW_MESSAGE);
  });

  it("refuses function tools on Chat Completions for OpenAI's reasoning models", async () => {
    const server = await serveOpenAI([]);
    const tool = { type: "function", function: { name: "bash", parameters: { type: "object" } } };
    const { status, text: body } = await post(server, "/chat/completions", {
      model: "gpt-5.6-terra",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
      tools: [tool],
    });
    expect(status).toBe(400);
    expect(body).toContain(
      "Function tools with reasoning_effort are not supported for gpt-5.6-terra in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.",
    );
  });
});

describe("the Chat Completions provider refused tools for such a model", () => {
  it("says in one sentence to use --api responses", async () => {
    const server = await serveOpenAI([]);
    const provider = createOpenAIProvider({ apiKey: "k", baseURL: server.url, model: MODEL });
    const tools = [
      {
        name: "bash",
        description: "Run.",
        input_schema: { type: "object" as const, properties: {} },
      },
    ];
    const request = {
      system: "",
      messages: [{ role: "user" as const, content: "hi" }],
      tools,
      signal: new AbortController().signal,
    };
    await expect(drain(provider.stream(request))).rejects.toMatchObject({
      kind: "invalid_request",
      message: expect.stringMatching(
        /^The openai server takes no function tools for "gpt-6.1-sol" on Chat Completions \(.*\): run agentloop with --api responses\.$/,
      ),
    });
  });
});

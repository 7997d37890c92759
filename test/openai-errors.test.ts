import { createServer } from "node:net";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIProvider, type OpenAIProviderOptions } from "../src/providers/openai.js";
import { classifyOpenAIError } from "../src/providers/openai-errors.js";
import { drain } from "./support/drain.js";
import { type FakeOpenAI, type FakeTurn, startFakeOpenAI } from "./support/fake-openai-server.js";
import { text } from "./support/scripted-provider.js";

const servers: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function failureOf(turns: FakeTurn[], options: Partial<OpenAIProviderOptions> = {}) {
  const server = await startFakeOpenAI();
  server.script(turns);
  servers.push(server);
  return failureAt(server.url, options);
}

async function failureAt(baseURL: string, options: Partial<OpenAIProviderOptions> = {}) {
  const provider = createOpenAIProvider({
    apiKey: "sk-test",
    baseURL,
    model: "qwen3",
    // One attempt: these tests are about the sentence, the retry tests about trying again.
    retryPolicy: { maxAttempts: 1 },
    ...options,
  });
  const request = {
    system: "",
    messages: [{ role: "user" as const, content: "hi" }],
    tools: [],
    signal: new AbortController().signal,
  };
  return drain(provider.stream(request)).then(
    () => expect.fail("the request should have failed"),
    (error: unknown) => error,
  );
}

/** A port on this machine that nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("the OpenAI provider's errors", () => {
  it("names OPENAI_API_KEY when the key is rejected", async () => {
    const error = await failureOf([
      { kind: "http_error", status: 401, message: "Incorrect API key" },
    ]);
    expect(error).toMatchObject({
      kind: "authentication",
      status: 401,
      message: "The openai server rejected the API key (401): check OPENAI_API_KEY.",
    });
  });

  it("names the preset's key variable when access is denied", async () => {
    const error = await failureOf([{ kind: "http_error", status: 403, message: "Forbidden" }], {
      name: "openrouter",
      apiKeyEnv: "OPENROUTER_API_KEY",
    });
    expect(error).toMatchObject({
      kind: "authentication",
      message: "The openrouter server rejected the API key (403): check OPENROUTER_API_KEY.",
    });
  });

  it("tells how to give a key to a local server that wants one", async () => {
    const error = await failureOf([{ kind: "http_error", status: 401, message: "no key" }], {
      name: "vllm",
      apiKeyEnv: null,
    });
    expect(error).toMatchObject({
      kind: "authentication",
      message: expect.stringMatching(
        /if it needs a key, use --provider openai --api chat --base-url http/,
      ),
    });
  });

  it("suggests ollama pull when Ollama does not have the model", async () => {
    const message = 'model "qwen3" not found, try pulling it first';
    const error = await failureOf([{ kind: "http_error", status: 404, message }], {
      name: "ollama",
      apiKeyEnv: null,
    });
    expect(error).toMatchObject({
      kind: "model_not_found",
      message: expect.stringMatching(
        /^The model "qwen3" was not found at .*: download it with "ollama pull qwen3"\.$/,
      ),
    });
  });

  it("names the model and the base URL when another server does not know the model", async () => {
    const message = "The model `qwen3` does not exist or you do not have access to it.";
    const error = await failureOf([
      { kind: "http_error", status: 404, message, code: "model_not_found" },
    ]);
    expect(error).toMatchObject({
      kind: "model_not_found",
      message: expect.stringMatching(
        /^The model "qwen3" was not found at http:\/\/127\.0\.0\.1:\d+\/v1: check --model/,
      ),
    });
  });

  it("says a local server does not seem to be running when the connection is refused", async () => {
    const baseURL = `http://localhost:${await closedPort()}/v1`;
    const error = await failureAt(baseURL, { name: "ollama", apiKeyEnv: null });
    expect(error).toMatchObject({
      kind: "unreachable",
      message: `Could not connect to ${baseURL}: the ollama server does not seem to be running.`,
    });
  });

  it.each([
    ["OpenAI's code", { code: "context_length_exceeded", message: "Input too long." }],
    ["vLLM's wording", { message: "This model's maximum context length is 8192 tokens." }],
    ["llama.cpp's wording", { message: "the request exceeds the available context size" }],
  ])("recognises a context window overflow from %s", async (_, body) => {
    const error = await failureOf([{ kind: "http_error", status: 400, ...body }]);
    expect(error).toMatchObject({
      kind: "context_too_long",
      message: expect.stringMatching(
        /^The conversation is too long for the model's context window/,
      ),
    });
  });

  it.each<[string, FakeTurn]>([
    [
      "OpenAI's code in an error chunk",
      {
        kind: "failed",
        code: "context_length_exceeded",
        message: "This model's maximum context length is 8192 tokens.",
        content: [text("half")],
      },
    ],
    [
      // llama.cpp's server answered a streamed request over the window this way, after a 200,
      // until https://github.com/ggml-org/llama.cpp/pull/16486 made it a 400.
      "llama.cpp's wording in an error chunk",
      {
        kind: "sse_error",
        message: "the request exceeds the available context size, try increasing it",
        content: [text("half")],
      },
    ],
  ])("recognises a context window overflow reported inside the stream: %s", async (_, turn) => {
    const error = await failureOf([turn]);
    expect(error).toMatchObject({
      kind: "context_too_long",
      message: expect.stringMatching(
        /^The conversation is too long for the model's context window/,
      ),
    });
  });

  it("reports any other 400 as an invalid request, with the server's reason", async () => {
    const error = await failureOf([
      { kind: "http_error", status: 400, message: "temperature is bad." },
    ]);
    expect(error).toMatchObject({
      kind: "invalid_request",
      status: 400,
      message: "The openai server rejected the request (400: temperature is bad).",
    });
  });

  it("reports 429 as rate limiting and 5xx as a server failure", async () => {
    const limited = await failureOf([{ kind: "http_error", status: 429, message: "Slow down" }]);
    expect(limited).toMatchObject({ kind: "rate_limited", status: 429 });
    const failed = await failureOf([{ kind: "http_error", status: 503, message: "Overloaded" }]);
    expect(failed).toMatchObject({ kind: "server", status: 503 });
  });

  it("reports a connection dropped mid-reply as a server failure", async () => {
    const error = await failureOf([{ kind: "reset", content: [text("a reply that is cut off")] }]);
    expect(error).toMatchObject({
      kind: "server",
      message: expect.stringMatching(/^The connection to .* broke off during the reply/),
    });
  });

  it("reports an error event inside the stream as a server failure", async () => {
    const error = await failureOf([
      { kind: "sse_error", content: [text("half an answer")], message: "model crashed" },
    ]);
    expect(error).toMatchObject({
      kind: "server",
      message: "The openai server reported an error: model crashed.",
    });
  });
});

describe("which failures are worth another attempt", () => {
  /** The error the SDK itself throws for a turn, before the provider turns it into a sentence. */
  async function sdkErrorFor(turn: FakeTurn | null): Promise<unknown> {
    let baseURL = `http://127.0.0.1:${await closedPort()}/v1`;
    if (turn) {
      const server = await startFakeOpenAI();
      server.script([turn]);
      servers.push(server);
      baseURL = server.url;
    }
    const client = new OpenAI({ apiKey: "sk-test", baseURL, maxRetries: 0 });
    const messages = [{ role: "user" as const, content: "hi" }];
    try {
      const stream = await client.chat.completions.create({ model: "m", messages, stream: true });
      for await (const _ of stream);
    } catch (error) {
      return error;
    }
    return expect.fail("the request should have failed");
  }

  const server = { name: "openai", baseURL: "http://x/v1", model: "m", apiKeyEnv: null };
  const content = [text("a reply that breaks off")];

  it.each([
    ["a 429", { kind: "http_error", status: 429, message: "slow down" }, true],
    ["a 500", { kind: "http_error", status: 500, message: "oops" }, true],
    ["a 503", { kind: "http_error", status: 503, message: "overloaded" }, true],
    ["a dropped connection", { kind: "reset", content }, true],
    ["an error in the stream", { kind: "sse_error", content, message: "crashed" }, true],
    [
      "an overflow reported in the stream",
      { kind: "failed", content, code: "context_length_exceeded", message: "too long" },
      false,
    ],
    ["a 400", { kind: "http_error", status: 400, message: "bad" }, false],
    ["a 401", { kind: "http_error", status: 401, message: "who?" }, false],
    ["a 404", { kind: "http_error", status: 404, message: "no model" }, false],
    ["a refused connection", null, false],
  ] as const)("after %s: retry is %s", async (_, turn, retry) => {
    const error = await sdkErrorFor(turn as FakeTurn | null);
    expect(classifyOpenAIError(error, server).retry).toBe(retry);
  });

  it("rethrows what is neither a server nor a network failure, because it is a bug", () => {
    const bug = new TypeError("cannot read properties of undefined");
    expect(() => classifyOpenAIError(bug, server)).toThrow(bug);
  });
});

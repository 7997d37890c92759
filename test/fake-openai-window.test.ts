// The fake OpenAI-compatible server's context window: a request too long for it is refused
// with the body the named server really sends, as the official SDK sees it; usage reports the
// request's counted tokens; an intercept answers chosen requests outside the script.

import OpenAI, { APIError } from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { text } from "./support/fake-anthropic-server.js";
import {
  type ContextErrorStyle,
  countChatTokens,
  type FakeOpenAI,
  type FakeOpenAIOptions,
  startFakeOpenAI,
} from "./support/fake-openai-server.js";

const servers: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function fakeWith(options: FakeOpenAIOptions = {}) {
  const server = await startFakeOpenAI(options);
  servers.push(server);
  return server;
}

// `{"role":"user","content":""}` is 28 characters, and a token is four characters of a
// message's JSON, so this content makes a one-message request of exactly `tokens` tokens.
const userMessage = (tokens: number) => ({
  role: "user" as const,
  content: "x".repeat(tokens * 4 - 28),
});

/** Sends a request through the SDK: the reply's text and usage, or the APIError it threw. */
async function send(server: FakeOpenAI, tokens: number, extra: { max_tokens?: number } = {}) {
  const client = new OpenAI({ apiKey: "sk-test", baseURL: server.url, maxRetries: 0 });
  try {
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [userMessage(tokens)],
      stream: true,
      stream_options: { include_usage: true },
      ...extra,
    });
    let reply = "";
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      reply += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    return { reply, usage };
  } catch (error) {
    if (error instanceof APIError) return { error };
    throw error;
  }
}

describe("the fake OpenAI server's token count", () => {
  it("counts a token for every four characters of each message's JSON and tool definition", () => {
    expect(countChatTokens({ messages: [userMessage(1_200)] })).toBe(1_200);
    const tool = { type: "function", function: { name: "bash", parameters: {} } };
    const toolTokens = Math.ceil(JSON.stringify(tool).length / 4);
    expect(countChatTokens({ messages: [userMessage(10)], tools: [tool] })).toBe(10 + toolTokens);
  });
});

describe("a request too long for the fake OpenAI server's window", () => {
  // Given a 1,000-token window, a 1,200-token request: each server's body, and what the
  // OpenAI SDK makes of it (it reads `error` from the body, and its message from there).
  const cases: {
    style: ContextErrorStyle;
    body: object;
    sdkMessage: string;
    sdkError: unknown;
  }[] = [
    {
      style: "openai",
      body: {
        error: {
          message:
            "This model's maximum context length is 1000 tokens. However, your messages resulted in 1200 tokens. Please reduce the length of the messages.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      },
      sdkMessage:
        "400 This model's maximum context length is 1000 tokens. However, your messages resulted in 1200 tokens. Please reduce the length of the messages.",
      sdkError: expect.objectContaining({ code: "context_length_exceeded" }),
    },
    {
      style: "llamacpp",
      body: {
        error: {
          code: 400,
          message: "request (1200 tokens) exceeds the available context size (1000 tokens)",
          type: "exceed_context_size_error",
          n_prompt_tokens: 1200,
          n_ctx: 1000,
        },
      },
      sdkMessage: "400 request (1200 tokens) exceeds the available context size (1000 tokens)",
      sdkError: expect.objectContaining({ n_prompt_tokens: 1200, n_ctx: 1000 }),
    },
    {
      // vLLM puts its message at the top level; the SDK looks only under `error`, finds
      // nothing, and so keeps neither the message nor the body.
      style: "vllm",
      body: {
        object: "error",
        message:
          "This model's maximum context length is 1000 tokens. However, you requested 1200 tokens (1200 in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
        type: "BadRequestError",
        param: null,
        code: 400,
      },
      sdkMessage: "400 status code (no body)",
      sdkError: undefined,
    },
    {
      // LM Studio's `error` is a string: the SDK keeps it as `error` and quotes it as JSON.
      style: "lmstudio",
      body: {
        error:
          "Trying to keep the first 1200 tokens when context the overflows. However, the model is loaded with context length of only 1000 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input.",
      },
      sdkMessage:
        '400 "Trying to keep the first 1200 tokens when context the overflows. However, the model is loaded with context length of only 1000 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input."',
      sdkError:
        "Trying to keep the first 1200 tokens when context the overflows. However, the model is loaded with context length of only 1000 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input.",
    },
    {
      style: "ollama",
      body: {
        error: {
          message: "prompt too long; exceeded max context length by 200 tokens",
          type: "api_error",
          param: null,
          code: null,
        },
      },
      sdkMessage: "400 prompt too long; exceeded max context length by 200 tokens",
      sdkError: expect.objectContaining({ type: "api_error" }),
    },
  ];

  it.each(cases)(
    "in the style of $style: is refused with that server's body",
    async ({ style, body, sdkMessage, sdkError }) => {
      const server = await fakeWith({ contextWindow: 1_000, contextErrorStyle: style });
      server.script([{ kind: "reply", content: [text("fits")] }]);

      const raw = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", stream: true, messages: [userMessage(1_200)] }),
      });
      expect(raw.status).toBe(400);
      expect(await raw.json()).toEqual(body);

      const { error } = await send(server, 1_200);
      expect(error?.status).toBe(400);
      expect(error?.message).toBe(sdkMessage);
      expect(error?.error).toEqual(sdkError);

      // Neither refusal used up the turn, and both were recorded as refused.
      expect((await send(server, 800)).reply).toBe("fits");
      expect(server.requests.map((request) => request.status)).toEqual([400, 400, 200]);
      expect(server.requests[0]?.rejection).toMatch(/\d+ tokens/);
    },
  );

  it("is refused in OpenAI's words when the completion asked for does not fit", async () => {
    const server = await fakeWith({ contextWindow: 1_000 });
    server.script([{ kind: "reply", content: [text("fits")] }]);
    const { error } = await send(server, 900, { max_tokens: 200 });
    expect(error?.message).toBe(
      "400 This model's maximum context length is 1000 tokens. However, you requested 1100 tokens (900 in the messages, 200 in the completion). Please reduce the length of the messages or completion.",
    );
    expect(error?.code).toBe("context_length_exceeded");
    expect((await send(server, 900, { max_tokens: 100 })).reply).toBe("fits");
  });

  it("is refused in vLLM's words, completion counted, when the completion does not fit", async () => {
    const server = await fakeWith({ contextWindow: 1_000, contextErrorStyle: "vllm" });
    server.script([{ kind: "reply", content: [text("fits")] }]);
    await send(server, 900, { max_tokens: 200 });
    expect(server.requests[0]?.rejection).toBe(
      "This model's maximum context length is 1000 tokens. However, you requested 1100 tokens (900 in the messages, 200 in the completion). Please reduce the length of the messages or completion.",
    );
  });

  it("is answered once the window is lifted or set later", async () => {
    const server = await fakeWith();
    server.script([{ kind: "reply", content: [text("fits")] }]);
    server.setContextWindow(1_000);
    expect((await send(server, 1_200)).error?.status).toBe(400);
    server.setContextWindow(undefined);
    expect((await send(server, 1_200)).reply).toBe("fits");
  });
});

describe("the fake OpenAI server's usage", () => {
  it("reports the counted prompt tokens, and a token for four characters of output, once a window is set", async () => {
    const server = await fakeWith({ contextWindow: 1_000 });
    server.script([{ kind: "reply", content: [text("twelve chars")] }]);
    const { usage } = await send(server, 300);
    expect(usage).toMatchObject({ prompt_tokens: 300, completion_tokens: 3, total_tokens: 303 });
  });

  it("reports the scripted usage when the reply gives one", async () => {
    const server = await fakeWith({ contextWindow: 1_000 });
    const usage = { prompt_tokens: 5, completion_tokens: 7 };
    server.script([{ kind: "reply", content: [text("hi")], usage }]);
    expect((await send(server, 300)).usage).toMatchObject(usage);
  });

  it("keeps reporting 20 and 10 when no window is set", async () => {
    const server = await fakeWith();
    server.script([{ kind: "reply", content: [text("hi")] }]);
    expect((await send(server, 300)).usage).toMatchObject({
      prompt_tokens: 20,
      completion_tokens: 10,
    });
  });
});

describe("the fake OpenAI server's intercept", () => {
  it("answers what it picks out without using up scripted turns", async () => {
    const server = await fakeWith();
    server.script(
      [
        { kind: "reply", content: [text("first")] },
        { kind: "reply", content: [text("second")] },
      ],
      {
        intercept: (body) => {
          const messages = body.messages as { content: string }[];
          const last = messages.at(-1)?.content;
          return last === "summarize, please"
            ? { kind: "reply", content: [text("a summary")] }
            : undefined;
        },
      },
    );
    const client = new OpenAI({ apiKey: "sk-test", baseURL: server.url, maxRetries: 0 });
    const ask = async (content: string) => {
      const messages = [{ role: "user" as const, content }];
      const stream = await client.chat.completions.create({ model: "m", messages, stream: true });
      let reply = "";
      for await (const chunk of stream) reply += chunk.choices[0]?.delta.content ?? "";
      return reply;
    };
    expect(await ask("hi")).toBe("first");
    expect(await ask("summarize, please")).toBe("a summary");
    expect(await ask("hi")).toBe("second");
  });
});

describe("the fake OpenAI server's record", () => {
  it("keeps each body's length in bytes and its tokens", async () => {
    const server = await fakeWith();
    server.script([{ kind: "reply", content: [text("ok")] }]);
    const messages = [{ role: "user", content: "héllo ✓" }];
    const sent = JSON.stringify({ model: "m", stream: true, messages });
    await fetch(`${server.url}/chat/completions`, { method: "POST", body: sent }).then((response) =>
      response.text(),
    );
    expect(server.requests[0]?.bytesReceived).toBe(Buffer.byteLength(sent));
    expect(server.requests[0]?.bytesReceived).toBeGreaterThan(sent.length);
    expect(server.requests[0]?.tokens).toBe(countChatTokens({ messages }));
  });
});

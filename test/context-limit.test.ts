import { afterEach, describe, expect, it } from "vitest";
import { ProviderError } from "../src/core/errors.js";
import { contextWindowIn } from "../src/providers/context-limit.js";
import { createOpenAIProvider } from "../src/providers/openai.js";
import { drain } from "./support/drain.js";
import { type FakeOpenAI, startFakeOpenAI } from "./support/fake-openai-server.js";

describe("the window a server names when it refuses a request as too long", () => {
  it.each([
    ["Anthropic", "prompt is too long: 208934 tokens > 200000 maximum", 200_000],
    [
      "Anthropic, with max_tokens",
      "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again",
      200_000,
    ],
    [
      "OpenAI",
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens.",
      128_000,
    ],
    [
      "vLLM",
      "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
      4_096,
    ],
    [
      "vLLM, newer",
      "The prompt (total length 25938) is too long to fit into the model (context length 4096).",
      4_096,
    ],
    ["llama.cpp", "request (4476 tokens) exceeds the available context size (4096 tokens)", 4_096],
    [
      "LM Studio",
      "Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.",
      4_096,
    ],
    [
      "LM Studio, n_keep",
      "The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096).",
      4_096,
    ],
    ["LM Studio, truncate", "Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)", 7_424],
  ])("%s", (_, message, window) => {
    expect(contextWindowIn(message)).toBe(window);
  });

  it("is unknown when the message names no window (Ollama says by how much, not of what)", () => {
    expect(contextWindowIn("prompt too long; exceeded max context length by 1200 tokens")).toBe(
      undefined,
    );
  });
});

describe("a server's 'too long' answer through the OpenAI SDK", () => {
  const servers: FakeOpenAI[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it.each([
    ["openai", 1_000],
    ["llamacpp", 1_000],
    ["lmstudio", 1_000],
    ["ollama", undefined],
  ] as const)("from %s is context_too_long, naming the window %s", async (style, window) => {
    const server = await startFakeOpenAI({ contextWindow: 1_000, contextErrorStyle: style });
    servers.push(server);
    server.script([{ kind: "reply", content: [{ type: "text", text: "never sent" }] }]);
    const provider = createOpenAIProvider({
      apiKey: "sk-test",
      baseURL: server.url,
      model: "qwen3",
      retryPolicy: { maxAttempts: 1 },
    });
    const request = {
      system: "",
      messages: [{ role: "user" as const, content: "x".repeat(8_000) }],
      tools: [],
      signal: new AbortController().signal,
    };
    const error = await drain(provider.stream(request)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "context_too_long", contextWindow: window });
  });
});

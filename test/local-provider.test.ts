// The local provider through the real node-llama-cpp, on a tiny GGUF model written by
// test/support/tiny-model.ts (random weights: its text is noise, its behaviour is real).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, ProviderError } from "../src/core/errors.js";
import type { LoopEvent } from "../src/core/events.js";
import type { ToolResultPart } from "../src/core/messages.js";
import { agentLoop, createLoopState } from "../src/loop.js";
import { createLocalProvider, type LocalProvider } from "../src/providers/local.js";
import type { ModelRequest } from "../src/providers/provider.js";
import type { Tool } from "../src/tools/tool.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { drain } from "./support/drain.js";
import { writeTinyModel } from "./support/tiny-model.js";

const directory = mkdtempSync(join(tmpdir(), "agentloop-local-"));
const modelPath = join(directory, "tiny.gguf");
const providers: LocalProvider[] = [];

beforeAll(() => writeTinyModel(modelPath, { contextLength: 4096 }));
afterAll(async () => {
  await Promise.all(providers.map((provider) => provider.dispose()));
  rmSync(directory, { recursive: true, force: true });
});

async function tinyProvider(options: Partial<Parameters<typeof createLocalProvider>[0]> = {}) {
  const provider = await createLocalProvider({
    modelPath,
    model: "tiny.gguf",
    gpu: false,
    threads: 1,
    maxTokens: 12,
    ...options,
  });
  providers.push(provider);
  return provider;
}

const ask = (content: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  system: "You are a test.",
  messages: [{ role: "user", content }],
  tools: [],
  signal: new AbortController().signal,
  ...extra,
});

/** A tool with a short string field, so the random model's JSON closes within a few tokens. */
function noteTool(ran: string[]): Tool {
  return {
    name: "note",
    description: "Write a short note.",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", maxLength: 8, description: "The note." } },
      required: ["text"],
    },
    run: async (input) => {
      ran.push(String(input.text));
      return { content: `noted ${JSON.stringify(input.text)}`, isError: false };
    },
  };
}

describe("the local provider", () => {
  it("streams the reply's text as it is generated and reports its tokens", async () => {
    const provider = await tinyProvider();
    const { events, result } = await drain(provider.stream(ask("Say something.")));
    const streamed = events
      .map((event) => (event.type === "text_delta" ? event.text : ""))
      .join("");
    expect(events.filter((event) => event.type === "text_delta").length).toBeGreaterThan(1);
    expect(result.message.content).toEqual(
      streamed.trim() ? [{ type: "text", text: streamed }] : [],
    );
    expect(result.message.model).toBe("tiny.gguf");
    expect(result.stopReason).toBe("max_tokens");
    expect(result.usage.output_tokens).toBe(12);
    expect(result.usage.input_tokens + result.usage.cache_read_input_tokens).toBeGreaterThan(20);
  });

  it("reuses the evaluated prompt on the next turn and counts it as read from the cache", async () => {
    const provider = await tinyProvider();
    const first = await drain(provider.stream(ask("One.")));
    const history = ask("One.").messages.concat([
      first.result.message.content.length > 0
        ? first.result.message
        : { role: "assistant", content: [{ type: "text", text: "ok" }] },
      { role: "user", content: "Two." },
    ]);
    const second = await drain(provider.stream(ask("", { messages: history })));
    expect(second.result.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it("knows its context window from the model and the memory it allocated", async () => {
    expect((await tinyProvider()).contextWindow).toBe(4096);
    expect((await tinyProvider({ maxContextSize: 2048 })).contextWindow).toBe(2048);
    expect((await tinyProvider()).device).toBe("CPU, 1 thread");
  });

  it("stops at once when the turn is interrupted", async () => {
    const provider = await tinyProvider({ maxTokens: 4000 });
    const controller = new AbortController();
    const stream = provider.stream(ask("Talk for a long time.", { signal: controller.signal }));
    await stream.next();
    const started = performance.now();
    controller.abort(new Error("interrupted"));
    await expect(drain(stream)).rejects.toThrow("interrupted");
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("refuses a conversation longer than its context with context_too_long, naming the window", async () => {
    const provider = await tinyProvider({ maxContextSize: 2048 });
    const error = await drain(provider.stream(ask("x".repeat(3_000)))).catch((caught) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "context_too_long", contextWindow: 2048 });
  });

  it("reads a line where an image was: the same prompt as that line written as text", async () => {
    const provider = await tinyProvider({ maxContextSize: 2048 });
    // 6,000 characters of base64 (4,500 bytes): more tokens than the whole context, were they sent.
    const image = {
      type: "image" as const,
      mediaType: "image/png" as const,
      data: "A".repeat(6_000),
    };
    const line = "[image: PNG, 4,500 bytes; not shown: this model does not take images]";
    const call = {
      type: "tool_use" as const,
      id: "r1",
      name: "read",
      input: { file_path: "a.png" },
    };
    const withResult = (second: ToolResultPart): ModelRequest["messages"] => [
      { role: "user", content: "Look at a.png." },
      { role: "assistant", content: [call] },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "r1",
            content: [{ type: "text", text: "a.png: PNG, 8x6" }, second],
          },
        ],
      },
    ];
    const promptOf = async (messages: ModelRequest["messages"]) => {
      const { result } = await drain(provider.stream(ask("", { messages })));
      return result.usage.input_tokens + result.usage.cache_read_input_tokens;
    };
    const seen = await promptOf(withResult(image));
    expect(seen).toBe(await promptOf(withResult({ type: "text", text: line })));
    expect(seen).toBeGreaterThan(await promptOf(withResult({ type: "text", text: "" })));
  });

  it("with a tool call required, returns a grammar-valid tool_use that the loop runs", async () => {
    const ran: string[] = [];
    const provider = await tinyProvider({ toolChoice: "required", maxTokens: 64 });
    const state = createLoopState([{ role: "user", content: "Take a note." }]);
    const events: LoopEvent[] = [];
    for await (const event of agentLoop(state, {
      provider,
      toolbox: createToolbox([noteTool(ran)]),
      system: "You take notes.",
      maxTurns: 1,
    })) {
      events.push(event);
    }
    const call = events.find((event) => event.type === "tool_start");
    expect(call).toMatchObject({
      call: { type: "tool_use", name: "note", input: { text: expect.any(String) } },
    });
    expect(ran).toHaveLength(1);
    expect(state.messages.at(-1)).toMatchObject({
      role: "user",
      content: [
        { type: "tool_result", content: `noted ${JSON.stringify(ran[0])}`, is_error: false },
      ],
    });
  });

  it("says clearly when the model file is missing or is not a model", async () => {
    const missing = createLocalProvider({
      modelPath: join(directory, "none.gguf"),
      model: "none",
      gpu: false,
    });
    await expect(missing).rejects.toThrow(ConfigError);
    await expect(missing).rejects.toThrow(/Cannot load the model .*none\.gguf/);
    const corrupt = join(directory, "corrupt.gguf");
    writeFileSync(corrupt, Buffer.concat([Buffer.from("GGUF"), Buffer.alloc(64, 7)]));
    await expect(
      createLocalProvider({ modelPath: corrupt, model: "corrupt", gpu: false }),
    ).rejects.toThrow(/Cannot load the model .*corrupt\.gguf .*complete \.gguf file/);
  });
});

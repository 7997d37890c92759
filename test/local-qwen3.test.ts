// The local provider on a Qwen3-format model (test/support/qwen3-model.ts): hand-set weights
// that think, call bash by themselves, and then say whether the tool's output reached them as
// raw text. The real node-llama-cpp parses the call, runs the grammar and the chat wrapper.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChatHistoryItem,
  getLlama,
  type Llama,
  LlamaChat,
  type LlamaContext,
  type LlamaModel,
} from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../src/core/messages.js";
import { createLocalProvider, type LocalProvider } from "../src/providers/local.js";
import type { ModelRequest, ToolDefinition } from "../src/providers/provider.js";
import { drain } from "./support/drain.js";
import { QWEN3_SCRIPT, writeQwen3Model } from "./support/qwen3-model.js";

const directory = mkdtempSync(join(tmpdir(), "agentloop-qwen3-"));
const modelPath = join(directory, "qwen3.gguf");
let provider: LocalProvider;

const BASH: ToolDefinition = {
  name: "bash",
  description: "Run a bash command.",
  input_schema: {
    type: "object",
    properties: { command: { type: "string", description: "The command." } },
    required: ["command"],
  },
};
/** Two lines, the first with a tab: what `cat notes.txt` prints. */
const NOTES = "name\tvalue\nsecond line\n[exit code 0]";

beforeAll(async () => {
  writeQwen3Model(modelPath);
  provider = await createLocalProvider({
    modelPath,
    model: "qwen3.gguf",
    gpu: false,
    threads: 1,
    maxTokens: 64,
  });
});
afterAll(async () => {
  await provider.dispose();
  rmSync(directory, { recursive: true, force: true });
});

const request = (messages: Message[]): ModelRequest => ({
  system: "You read notes.",
  messages,
  tools: [BASH],
  signal: new AbortController().signal,
});

describe("the local provider on a Qwen3 model", () => {
  it("returns the call the model makes by itself, its thinking before it and apart from the text", async () => {
    const { events, result } = await drain(
      provider.stream(request([{ role: "user", content: "Read my notes." }])),
    );
    expect(result.stopReason).toBe("tool_use");
    expect(result.message).toEqual({
      role: "assistant",
      model: "qwen3.gguf",
      content: [
        { type: "thinking", thinking: QWEN3_SCRIPT.thought },
        {
          type: "tool_use",
          id: expect.any(String),
          name: "bash",
          input: { command: QWEN3_SCRIPT.command },
        },
      ],
    });
    const thinking = events.filter((event) => event.type === "thinking_delta");
    expect(thinking.map((event) => event.text).join("")).toBe(QWEN3_SCRIPT.thought);
    // Not even the blank line between `</think>` and the call: that is the template's layout.
    expect(events.filter((event) => event.type === "text_delta")).toEqual([]);
  });

  it("feeds the tool's output back as raw text, so the model sees its tab and lines", async () => {
    const first = await drain(
      provider.stream(request([{ role: "user", content: "Read my notes." }])),
    );
    const call = first.result.message.content.find((block) => block.type === "tool_use");
    if (call?.type !== "tool_use") throw new Error("the model made no call");
    const second = await drain(
      provider.stream(
        request([
          { role: "user", content: "Read my notes." },
          first.result.message,
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: call.id, content: NOTES }],
          },
        ]),
      ),
    );
    expect(second.result.stopReason).toBe("end_turn");
    expect(second.result.message.content).toEqual([{ type: "text", text: QWEN3_SCRIPT.answerRaw }]);
  });

  it("sends back its own thinking of the current request, not another model's", async () => {
    // The model answers answerRaw only if a tab reached it; here only the thinking has one.
    const reply = (model: string) =>
      drain(
        provider.stream(
          request([
            { role: "user", content: "Read my notes." },
            {
              role: "assistant",
              model,
              content: [
                { type: "thinking", thinking: "Read\tthem." },
                {
                  type: "tool_use",
                  id: "call_1",
                  name: "bash",
                  input: { command: "cat notes.txt" },
                },
              ],
            },
            {
              role: "user",
              content: [{ type: "tool_result", tool_use_id: "call_1", content: "none" }],
            },
          ]),
        ),
      );
    expect((await reply("qwen3.gguf")).result.message.content).toEqual([
      { type: "text", text: QWEN3_SCRIPT.answerRaw },
    ]);
    expect((await reply("another-model")).result.message.content).toEqual([
      { type: "text", text: QWEN3_SCRIPT.answerEscaped },
    ]);
  });

  it("completes a call the model starts under the tool's grammar, when it cannot write the input", async () => {
    // The script writes bash's `{"command": ...}`; a note needs `{"text": ...}` of at most 8
    // characters, so every argument token comes from the grammar, not from the script.
    const note: ToolDefinition = {
      name: "note",
      description: "Write a short note.",
      input_schema: {
        type: "object",
        properties: { text: { type: "string", maxLength: 8 } },
        required: ["text"],
      },
    };
    const { result } = await drain(
      provider.stream({ ...request([{ role: "user", content: "Take a note." }]), tools: [note] }),
    );
    expect(result.stopReason).toBe("tool_use");
    const call = result.message.content.find((block) => block.type === "tool_use");
    expect(call).toMatchObject({ name: "note", input: { text: expect.any(String) } });
    expect(Object.keys((call as { input: object }).input)).toEqual(["text"]);
    expect((call as { input: { text: string } }).input.text.length).toBeLessThanOrEqual(8);
  });
});

describe("the scripted Qwen3 model", () => {
  let llama: Llama;
  let model: LlamaModel;
  let context: LlamaContext;
  beforeAll(async () => {
    llama = await getLlama({ gpu: false, build: "never" });
    model = await llama.loadModel({ modelPath });
    context = await model.createContext({ contextSize: 1024, threads: 1 });
  });
  afterAll(async () => {
    await context.dispose();
    await model.dispose();
    await llama.dispose();
  });

  it("tells escaped output apart: through node-llama-cpp's own wrapper, a result is a JSON string", async () => {
    // The wrapper node-llama-cpp picks on its own, which JSON-encodes a text result.
    const chat = new LlamaChat({ contextSequence: context.getSequence() });
    const history: ChatHistoryItem[] = [
      { type: "system", text: "You read notes." },
      { type: "user", text: "Read my notes." },
      {
        type: "model",
        response: [
          {
            type: "functionCall",
            name: "bash",
            params: { command: QWEN3_SCRIPT.command },
            result: NOTES,
          },
        ],
      },
    ];
    const reply = await chat.generateResponse(history, { maxTokens: 16 });
    expect(reply.response).toBe(QWEN3_SCRIPT.answerEscaped);
    await chat.dispose();
  });
});

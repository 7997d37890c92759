// Qwen3.5, the local default (docs/local-model.md), through the pinned node-llama-cpp: a tiny
// model of its architecture (test/support/qwen35-model.ts) loads and writes on the prebuilt
// llama.cpp, and the conversation it reads is what Qwen3.5's own chat template writes (the
// template in test/fixtures, rendered by @huggingface/jinja), but for one thing node-llama-cpp
// decides: the arguments of a call.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  getLlama,
  type Llama,
  LlamaCompletion,
  type LlamaModel,
  QwenChatWrapper,
} from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalProvider } from "../src/providers/local.js";
import { drain } from "./support/drain.js";
import { QWEN3_5_TEMPLATE, writeQwen35Model } from "./support/qwen35-model.js";
import {
  BASH,
  LISTING,
  rendered,
  renderTemplate,
  TEMPLATE_MESSAGES,
} from "./support/template-conversation.js";

const directory = mkdtempSync(join(tmpdir(), "agentloop-qwen35-"));
const modelPath = join(directory, "qwen35.gguf");
let llama: Llama;
let model: LlamaModel;

beforeAll(async () => {
  writeQwen35Model(modelPath);
  llama = await getLlama({ gpu: false, build: "never" });
  model = await llama.loadModel({ modelPath });
});
afterAll(async () => {
  await model.dispose();
  await llama.dispose();
  rmSync(directory, { recursive: true, force: true });
});

/** How Qwen3.5's template writes a call to bash: each argument a parameter of its own. */
const templateCall = (command: string) =>
  `<function=bash>\n<parameter=command>\n${command}\n</parameter>\n</function>`;
/** How node-llama-cpp's wrapper writes it: all arguments as one JSON object named `params`. */
const wrapperCall = (command: string) =>
  `<function=bash>\n<parameter=params>\n{"command": "${command}"}\n</parameter>\n</function>`;

describe("a Qwen3.5 model on the pinned node-llama-cpp", () => {
  it("loads and writes tokens: the prebuilt llama.cpp runs the qwen35 architecture", async () => {
    expect(model.fileInfo.metadata.general.architecture).toBe("qwen35");
    const context = await model.createContext({ contextSize: 512, threads: 1 });
    try {
      const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
      const text = await completion.generateCompletion("ls -la", { maxTokens: 8 });
      expect(model.tokenize(text, true).length).toBeGreaterThan(0);
    } finally {
      await context.dispose();
    }
  });

  it("gets Qwen's wrapper in its 3.5 variation, the reply opened with <think>", async () => {
    const { wrapper } = await rendered(model);
    expect(wrapper).toBeInstanceOf(QwenChatWrapper);
    expect((wrapper as QwenChatWrapper).variation).toBe("3.5");
    expect(wrapper.settings.segments?.thought?.openOnResponseStart).toBe(true);
  });

  it("reads what its template writes, byte for byte, but for calls' arguments in one JSON `params`", async () => {
    const { text } = await rendered(model);
    // Qwen3.5-4B thinks unless told not to: its generation prompt opens <think>, as node-llama-cpp
    // does itself when the reply starts. The fixture's template thinks only when asked.
    const template = renderTemplate(QWEN3_5_TEMPLATE, TEMPLATE_MESSAGES, { enable_thinking: true });
    expect(template).toContain(templateCall("ls -R"));
    const withWrapperCalls = template
      .replace(templateCall("ls -R"), wrapperCall("ls -R"))
      .replace(templateCall("npm test"), wrapperCall("npm test"));
    expect(`${text}<think>\n`).toBe(withWrapperCalls);
  });

  it("gets a tool's output as raw text inside <tool_response>, as its template writes it", async () => {
    const { text } = await rendered(model);
    expect(text).toContain(`<tool_response>\n${LISTING}\n</tool_response>`);
    expect(text).not.toContain(JSON.stringify(LISTING));
  });

  it("gets the same wrapper when its template thinks by default, as Qwen3.5-4B's does", async () => {
    const thinking = QWEN3_5_TEMPLATE.replace(
      "enable_thinking is defined and enable_thinking is true %}\n        {{- '<think>\\n' }}\n    {%- else %}\n        {{- '<think>\\n\\n</think>\\n\\n' }}",
      "enable_thinking is defined and enable_thinking is false %}\n        {{- '<think>\\n\\n</think>\\n\\n' }}\n    {%- else %}\n        {{- '<think>\\n' }}",
    );
    expect(thinking).not.toBe(QWEN3_5_TEMPLATE);
    const path = join(directory, "qwen35-thinking.gguf");
    writeQwen35Model(path, { chatTemplate: thinking });
    const thinker = await llama.loadModel({ modelPath: path });
    try {
      const { wrapper, text } = await rendered(thinker);
      expect((wrapper as QwenChatWrapper).variation).toBe("3.5");
      expect(text).toBe((await rendered(model)).text);
    } finally {
      await thinker.dispose();
    }
  });

  it("answers a request through the local provider, with the tools offered", async () => {
    const provider = await createLocalProvider({
      modelPath,
      model: "qwen35.gguf",
      gpu: false,
      threads: 1,
      maxTokens: 12,
    });
    try {
      const request = {
        system: "You are a coding agent.",
        messages: [{ role: "user" as const, content: "List the files." }],
        tools: [BASH],
        signal: new AbortController().signal,
      };
      const { result } = await drain(provider.stream(request));
      expect(result.usage.output_tokens).toBeGreaterThan(0);
      expect(result.usage.input_tokens).toBeGreaterThan(100);
    } finally {
      await provider.dispose();
    }
  });
});

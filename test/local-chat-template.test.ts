// What the local model reads: our conversation, through local-history.ts and the chat wrapper
// that local-chat-wrapper.ts picks for a model, next to the model's own chat template (what the
// model was trained on) rendered by @huggingface/jinja, the engine node-llama-cpp renders
// templates with. The templates are the models' real ones (test/fixtures/chat-templates).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  GemmaChatWrapper,
  getLlama,
  type Llama,
  Llama3_1ChatWrapper,
  type LlamaModel,
  MistralChatWrapper,
  QwenChatWrapper,
} from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../src/core/messages.js";
import { writeQwen3Model } from "./support/qwen3-model.js";
import {
  FAILURE,
  LISTING,
  rendered,
  renderTemplate,
  SYSTEM,
  TEMPLATE_MESSAGES,
  template,
} from "./support/template-conversation.js";
import { writeTinyModel } from "./support/tiny-model.js";

const directory = mkdtempSync(join(tmpdir(), "agentloop-chat-template-"));
let llama: Llama;
const models: LlamaModel[] = [];

beforeAll(async () => {
  llama = await getLlama({ gpu: false, build: "never" });
});
afterAll(async () => {
  for (const model of models) await model.dispose();
  await llama.dispose();
  rmSync(directory, { recursive: true, force: true });
});

async function load(path: string): Promise<LlamaModel> {
  const model = await llama.loadModel({ modelPath: path });
  models.push(model);
  return model;
}

/** A tiny llama model carrying another model's template, name and control tokens. */
async function modelWith(
  templateName: string,
  name: string,
  controlTokens: string[],
): Promise<LlamaModel> {
  const path = join(directory, `${templateName}.gguf`);
  writeTinyModel(path, { chatTemplate: template(templateName), name, controlTokens });
  return load(path);
}

const LLAMA_3_TOKENS = [
  "<|begin_of_text|>",
  "<|end_of_text|>",
  "<|start_header_id|>",
  "<|end_header_id|>",
  "<|eot_id|>",
  "<|eom_id|>",
  "<|python_tag|>",
];
const GEMMA_TOKENS = ["<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>"];
const MISTRAL_TOKENS = [
  "<s>",
  "</s>",
  "[INST]",
  "[/INST]",
  "[AVAILABLE_TOOLS]",
  "[/AVAILABLE_TOOLS]",
  "[TOOL_CALLS]",
  "[TOOL_RESULTS]",
  "[/TOOL_RESULTS]",
];

describe("what a Qwen3 model reads", () => {
  let qwen3: LlamaModel;
  beforeAll(async () => {
    const path = join(directory, "qwen3.gguf");
    writeQwen3Model(path);
    qwen3 = await load(path);
  });

  it("is byte for byte what Qwen3's own template writes for the conversation", async () => {
    const { wrapper, text } = await rendered(qwen3);
    expect(wrapper).toBeInstanceOf(QwenChatWrapper);
    expect(text).toBe(renderTemplate(template("qwen3")));
  });

  it("gets a tool's output as raw text inside <tool_response>, not a JSON string", async () => {
    const { text } = await rendered(qwen3);
    expect(text).toContain(`<tool_response>\n${LISTING}\n</tool_response>`);
    expect(text).toContain(`<tool_response>\nError: ${FAILURE}\n</tool_response>`);
    expect(text).not.toContain(JSON.stringify(LISTING));
  });

  it("sees its thinking of the request it works on, not of earlier answers", async () => {
    const { text } = await rendered(qwen3);
    expect(text).toContain(
      "<|im_start|>assistant\n<think>\nnpm test runs them.\n</think>\n\n<tool_call>",
    );
    expect(text).not.toContain("I should list it.");
  });

  it("gets a first request as the template writes it too", async () => {
    const first: Message[] = [{ role: "user", content: "Hello.\nWho are you?" }];
    const { text } = await rendered(qwen3, first);
    expect(text).toBe(
      renderTemplate(template("qwen3"), [
        { role: "system", content: SYSTEM },
        { role: "user", content: "Hello.\nWho are you?" },
      ]),
    );
  });
});

/** The part of a prompt from `start` to the first `end` after it. */
function section(text: string, start: string, end: string): string {
  const from = text.indexOf(start);
  expect(from).toBeGreaterThanOrEqual(0);
  return text.slice(from, text.indexOf(end, from + start.length) + end.length);
}

describe("what other local models read of a tool result", () => {
  it("Llama 3.x: the JSON string its own template writes (tojson of a string)", async () => {
    const model = await modelWith("llama-3.2", "Llama 3.2 3B Instruct", LLAMA_3_TOKENS);
    const { wrapper, text } = await rendered(model);
    expect(wrapper).toBeInstanceOf(Llama3_1ChatWrapper);
    const reference = renderTemplate(template("llama-3.2"));
    const result = (prompt: string) =>
      section(prompt, "<|start_header_id|>ipython<|end_header_id|>", "<|eot_id|>");
    expect(result(text)).toBe(result(reference));
    expect(result(reference)).toContain(JSON.stringify(LISTING));
  });

  it("Gemma 2: its template has no tool turns, so the result is raw text in node-llama-cpp's syntax", async () => {
    const model = await modelWith("gemma-2", "Gemma 2 2b It", GEMMA_TOKENS);
    const { wrapper, text } = await rendered(model);
    expect(wrapper).toBeInstanceOf(GemmaChatWrapper);
    expect(() =>
      renderTemplate(
        template("gemma-2"),
        TEMPLATE_MESSAGES.filter((m) => m.role !== "system"),
      ),
    ).toThrow(/roles must alternate/);
    expect(text).toContain(`||result: ${LISTING}\n`);
  });

  it("ChatML: the plain template has no tool calls either; the result is raw text", async () => {
    const path = join(directory, "chatml.gguf");
    writeTinyModel(path);
    const { text } = await rendered(await load(path));
    expect(text).toContain(`||result: ${LISTING}\n`);
  });

  it("Mistral Nemo: the JSON object node-llama-cpp writes, with the content JSON-encoded", async () => {
    const model = await modelWith("mistral-nemo", "Mistral Nemo Instruct 2407", MISTRAL_TOKENS);
    const { wrapper, text } = await rendered(model);
    expect(wrapper).toBeInstanceOf(MistralChatWrapper);
    // The template pastes the content unquoted into `{"content": ..., "call_id": ...}` and wants
    // 9-character call ids, which node-llama-cpp's history has no place for.
    const nineCharacterIds = TEMPLATE_MESSAGES.map((message) =>
      "tool_call_id" in message
        ? { ...message, tool_call_id: "abcdefgh1" }
        : "tool_calls" in message
          ? { ...message, tool_calls: message.tool_calls?.map((c) => ({ ...c, id: "abcdefgh1" })) }
          : message,
    );
    const reference = renderTemplate(template("mistral-nemo"), nineCharacterIds);
    expect(reference).toContain(`[TOOL_RESULTS]{"content": ${LISTING}, "call_id": "abcdefgh1"}`);
    expect(text).toContain(`[TOOL_RESULTS]{"name": "bash", "content": ${JSON.stringify(LISTING)}}`);
  });
});

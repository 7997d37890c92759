// What the local model reads: our conversation, through local-history.ts and the chat wrapper
// that local-chat-wrapper.ts picks for a model, next to the model's own chat template (what the
// model was trained on) rendered by @huggingface/jinja, the engine node-llama-cpp renders
// templates with. The templates are the models' real ones (test/fixtures/chat-templates).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
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
import { chatWrapperFor } from "../src/providers/local-chat-wrapper.js";
import { toChatFunctions, toChatHistory, toGrammarSchema } from "../src/providers/local-history.js";
import type { ToolDefinition } from "../src/providers/provider.js";
import { writeQwen3Model } from "./support/qwen3-model.js";
import { writeTinyModel } from "./support/tiny-model.js";

const template = (name: string) =>
  readFileSync(new URL(`./fixtures/chat-templates/${name}.jinja`, import.meta.url), "utf8");

const SYSTEM = "You are a coding agent.\nWork in /work.";
const BASH: ToolDefinition = {
  name: "bash",
  description: "Run a bash command.",
  input_schema: {
    type: "object",
    properties: {
      command: { type: "string", description: "The command." },
      timeout: { type: "number", description: "Seconds." },
    },
    required: ["command"],
  },
};
/** Output with the lines, indentation, tab and quotes that escaping would hide. */
const LISTING = 'README.md\nsrc/\n  main.py\t"entry point"\n[exit code 0]';
const FAILURE = "FAIL test/a.test.ts\n  expected 'a' to be \"b\"\n[exit code 1]";

/** Two requests; the second is in the middle of a tool call whose command failed. */
const CONVERSATION: Message[] = [
  { role: "user", content: "What is in this directory?" },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "I should list it." },
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "call_1", name: "bash", input: { command: "ls -R" } },
    ],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: LISTING }] },
  { role: "assistant", content: [{ type: "text", text: "A README and src/main.py." }] },
  { role: "user", content: "Run the tests." },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "npm test runs them." },
      { type: "tool_use", id: "call_2", name: "bash", input: { command: "npm test" } },
    ],
  },
  {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "call_2", content: FAILURE, is_error: true }],
  },
];

/** The same conversation as a chat-completions server holds it, the shape templates take. */
const call = (id: string, command: string) => ({
  id,
  type: "function",
  function: { name: "bash", arguments: { command } },
});
const TEMPLATE_MESSAGES = [
  { role: "system", content: SYSTEM },
  { role: "user", content: "What is in this directory?" },
  {
    role: "assistant",
    content: "Let me look.",
    reasoning_content: "I should list it.",
    tool_calls: [call("call_1", "ls -R")],
  },
  { role: "tool", tool_call_id: "call_1", content: LISTING },
  { role: "assistant", content: "A README and src/main.py." },
  { role: "user", content: "Run the tests." },
  {
    role: "assistant",
    content: "",
    reasoning_content: "npm test runs them.",
    tool_calls: [call("call_2", "npm test")],
  },
  // An error result keeps the marking the provider gives it.
  { role: "tool", tool_call_id: "call_2", content: `Error: ${FAILURE}` },
];
/** The tools as the model is told of them: the schemas its calls are generated under. */
const TEMPLATE_TOOLS = [
  {
    type: "function",
    function: {
      name: BASH.name,
      description: BASH.description,
      parameters: toGrammarSchema(BASH.input_schema),
    },
  },
];

function renderTemplate(source: string, messages: unknown[] = TEMPLATE_MESSAGES): string {
  return new Template(source).render({
    messages,
    tools: TEMPLATE_TOOLS,
    add_generation_prompt: true,
    bos_token: "",
    eos_token: "</s>",
  });
}

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

/** What the wrapper chosen for the model writes for CONVERSATION, up to the model's reply. */
async function rendered(model: LlamaModel, conversation: Message[] = CONVERSATION) {
  const chosen = await chatWrapperFor(model);
  const history = toChatHistory(SYSTEM, conversation, chosen);
  const state = chosen.wrapper.generateContextState({
    chatHistory: history,
    availableFunctions: toChatFunctions([BASH]),
  });
  return { wrapper: chosen.wrapper, text: state.contextText.toString() };
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

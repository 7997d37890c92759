// One conversation, with a tool call, its raw output and a failed command, as the local provider
// hands it to a model's chat wrapper and as the model's own chat template takes it: the tests of
// what a local model reads (local-chat-template.test.ts, local-qwen35.test.ts) compare the two.

import { readFileSync } from "node:fs";
import { Template } from "@huggingface/jinja";
import type { LlamaModel } from "node-llama-cpp";
import type { Message } from "../../src/core/messages.js";
import { chatWrapperFor } from "../../src/providers/local-chat-wrapper.js";
import {
  toChatFunctions,
  toChatHistory,
  toGrammarSchema,
} from "../../src/providers/local-history.js";
import type { ToolDefinition } from "../../src/providers/provider.js";

export const template = (name: string) =>
  readFileSync(new URL(`../fixtures/chat-templates/${name}.jinja`, import.meta.url), "utf8");

export const SYSTEM = "You are a coding agent.\nWork in /work.";
export const BASH: ToolDefinition = {
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
export const LISTING = 'README.md\nsrc/\n  main.py\t"entry point"\n[exit code 0]';
export const FAILURE = "FAIL test/a.test.ts\n  expected 'a' to be \"b\"\n[exit code 1]";

/** Two requests; the second is in the middle of a tool call whose command failed. */
export const CONVERSATION: Message[] = [
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
export const TEMPLATE_MESSAGES = [
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
export const TEMPLATE_TOOLS = [
  {
    type: "function",
    function: {
      name: BASH.name,
      description: BASH.description,
      parameters: toGrammarSchema(BASH.input_schema),
    },
  },
];

/** What the model's own template writes for `messages`; `variables` are its other inputs. */
export function renderTemplate(
  source: string,
  messages: unknown[] = TEMPLATE_MESSAGES,
  variables: Record<string, unknown> = {},
): string {
  return new Template(source).render({
    messages,
    tools: TEMPLATE_TOOLS,
    add_generation_prompt: true,
    bos_token: "",
    eos_token: "</s>",
    ...variables,
  });
}

/** What the wrapper chosen for the model writes for CONVERSATION, up to the model's reply. */
export async function rendered(model: LlamaModel, conversation: Message[] = CONVERSATION) {
  const chosen = await chatWrapperFor(model);
  const history = toChatHistory(SYSTEM, conversation, chosen);
  const state = chosen.wrapper.generateContextState({
    chatHistory: history,
    availableFunctions: toChatFunctions([BASH]),
  });
  return { wrapper: chosen.wrapper, text: state.contextText.toString() };
}

// Our Anthropic-shaped conversation as node-llama-cpp's chat history, and our tools' JSON
// schemas as the grammar schemas it constrains function-call arguments with. In its history a
// tool call carries its own result, and the model's turn goes on after the results in the same
// response, so an assistant message, the results that answer it and the assistant message
// after them form one model response. The model's thinking goes in as thought segments, and
// the whitespace its template puts around them and before calls is put back (HistoryStyle).

import type {
  ChatHistoryItem,
  ChatModelFunctions,
  ChatModelResponse,
  GbnfJsonSchema,
} from "node-llama-cpp";
import { type Message, resultText, type ToolResultBlock } from "../core/messages.js";
import type { TemplateLayout } from "./local-chat-wrapper.js";
import type { ToolDefinition } from "./provider.js";

export interface HistoryStyle {
  layout: TemplateLayout;
  /** Whether the model's thinking goes back to it (only wrappers that know thinking take it). */
  thinks: boolean;
}

export function toChatHistory(
  system: string,
  messages: readonly Message[],
  style: HistoryStyle,
): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = system ? [{ type: "system", text: system }] : [];
  const results = new Map<string, ToolResultBlock>();
  for (const message of messages) {
    if (message.role === "user" && typeof message.content !== "string") {
      for (const block of message.content) {
        if (block.type === "tool_result") results.set(block.tool_use_id, block);
      }
    }
  }
  // Like Qwen3's template, thinking goes back only while the model works on the latest request:
  // the reasoning of answers before it is dropped.
  const latestRequest = messages.findLastIndex((message) => userText(message) !== "");
  for (const [index, message] of messages.entries()) {
    const last = history.at(-1);
    if (message.role === "user") {
      const text = userText(message);
      if (text !== "") history.push({ type: "user", text });
      continue;
    }
    const response: ChatModelResponse["response"] = [];
    let hasText = false;
    let hasCall = false;
    for (const block of message.content) {
      if (block.type === "thinking") {
        // Only this model's own thinking gets here (reasoningFor, in local.ts).
        if (!style.thinks || index < latestRequest) continue;
        response.push({
          type: "segment",
          segmentType: "thought",
          text: block.thinking,
          ended: true,
        });
        if (style.layout.afterThought) response.push(style.layout.afterThought);
      } else if (block.type === "text") {
        response.push(block.text);
        hasText = true;
      } else if (block.type === "tool_use") {
        if (hasText && !hasCall && style.layout.beforeCall) response.push(style.layout.beforeCall);
        hasCall = true;
        const result = results.get(block.id);
        response.push({
          type: "functionCall",
          name: block.name,
          params: block.input,
          result: result ? resultAsText(result) : "No result was recorded.",
        });
      }
    }
    if (last?.type === "model") last.response.push(...response);
    else history.push({ type: "model", response });
  }
  // The reply to be written, as LlamaChat would add it: the prompt then ends where the model starts.
  if (history.at(-1)?.type !== "model") history.push({ type: "model", response: [] });
  return history;
}

/** What the user wrote in a message; empty for a message of tool results only. */
function userText(message: Message): string {
  if (message.role !== "user") return "";
  return typeof message.content === "string"
    ? message.content
    : message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n\n");
}

/** Images are already lines of text here: local.ts describes them (images/describe-images.ts). */
function resultAsText(result: ToolResultBlock): string {
  const text = resultText(result.content);
  return result.is_error ? `Error: ${text}` : text;
}

export function toChatFunctions(tools: readonly ToolDefinition[]): ChatModelFunctions {
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      { description: tool.description, params: toGrammarSchema(tool.input_schema) },
    ]),
  );
}

/**
 * A JSON schema in the subset node-llama-cpp turns into a grammar. That grammar makes every
 * property of an object required, so optional properties are left out: the model cannot set
 * them, and the tool's defaults apply (bash's timeout, for one).
 */
export function toGrammarSchema(schema: unknown): GbnfJsonSchema {
  const node = (schema ?? {}) as Record<string, unknown>;
  const description = typeof node.description === "string" ? { description: node.description } : {};
  if (Array.isArray(node.enum))
    return { enum: node.enum as (string | number | boolean | null)[], ...description };
  if ("const" in node)
    return { const: node.const as string | number | boolean | null, ...description };
  switch (node.type) {
    case "object": {
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      const required = new Set((node.required ?? []) as string[]);
      const kept = Object.entries(properties).filter(([name]) => required.has(name));
      return {
        type: "object",
        properties: Object.fromEntries(kept.map(([name, value]) => [name, toGrammarSchema(value)])),
        ...description,
      };
    }
    case "array":
      return { type: "array", items: toGrammarSchema(node.items), ...description };
    case "string": {
      const bounds = Object.fromEntries(
        ["minLength", "maxLength"].flatMap((key) =>
          typeof node[key] === "number" ? [[key, node[key]]] : [],
        ),
      );
      return { type: "string", ...bounds, ...description };
    }
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return { type: node.type, ...description };
    default:
      return { type: ["string", "number", "boolean", "null"], ...description };
  }
}

// Our Anthropic-shaped conversation, written as a Chat Completions request. The two protocols
// differ in where tool results live: Anthropic puts them in a user message as blocks, Chat
// Completions gives each its own `role: "tool"` message, which must come right after the
// assistant message that asked for it.

import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import {
  type AssistantMessage,
  type ImageBlock,
  type Message,
  resultImages,
  resultText,
  type TextBlock,
  type UserMessage,
} from "../core/messages.js";
import { plural } from "../core/wording.js";
import type { ToolDefinition } from "./provider.js";

export function toChatMessages(system: string, messages: Message[]): ChatCompletionMessageParam[] {
  const chat: ChatCompletionMessageParam[] = [];
  if (system !== "") chat.push({ role: "system", content: system });
  for (const message of messages) {
    if (message.role === "assistant") chat.push(toChatAssistant(message));
    else chat.push(...toChatUser(message));
  }
  return chat;
}

export function toChatTools(tools: ToolDefinition[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: { ...tool.input_schema },
    },
  }));
}

/**
 * The reasoning a server streamed goes back with its message, as `reasoning_content`:
 * DeepSeek's thinking mode answers 400 to a tool-calling message without it, and servers that
 * do not want it back ignore it.
 */
type AssistantWithReasoning = ChatCompletionAssistantMessageParam & { reasoning_content?: string };

function toChatAssistant(message: AssistantMessage): AssistantWithReasoning {
  const text = joinText(message.content.filter((block) => block.type === "text"));
  const reasoning = message.content
    .flatMap((block) => (block.type === "thinking" ? [block.thinking] : []))
    .join("");
  const toolCalls: ChatCompletionMessageToolCall[] = [];
  for (const block of message.content) {
    if (block.type !== "tool_use") continue;
    toolCalls.push({
      id: block.id,
      type: "function",
      function: { name: block.name, arguments: argumentsOf(block.input) },
    });
  }
  const withReasoning = reasoning === "" ? {} : { reasoning_content: reasoning };
  if (toolCalls.length === 0) return { role: "assistant", content: text, ...withReasoning };
  return {
    role: "assistant",
    content: text === "" ? null : text,
    ...withReasoning,
    tool_calls: toolCalls,
  };
}

/**
 * Tool results first, each its own message in order; any text the user added comes after.
 * A tool message carries text only, so a result's images follow the turn's tool messages in
 * one user message, each after a line naming its call: user messages take `image_url` parts
 * with base64 data URLs (the SDK's ImageURL: "the base64 encoded image data"), and a user
 * message may not come between an assistant's tool calls and their tool messages.
 */
function toChatUser(message: UserMessage): ChatCompletionMessageParam[] {
  if (typeof message.content === "string") return [{ role: "user", content: message.content }];
  const chat: ChatCompletionMessageParam[] = [];
  const texts: TextBlock[] = [];
  const pictures: ChatCompletionContentPart[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      texts.push(block);
      continue;
    }
    const images = resultImages(block.content);
    const note = images.length === 0 ? "" : `\n${imagesFollow(images.length)}`;
    chat.push({
      role: "tool",
      tool_call_id: block.tool_use_id,
      content: resultText(block.content) + note,
    });
    if (images.length === 0) continue;
    pictures.push({ type: "text", text: `Images from tool call ${block.tool_use_id}:` });
    for (const image of images) {
      pictures.push({ type: "image_url", image_url: { url: dataUrl(image) } });
    }
  }
  if (pictures.length > 0) chat.push({ role: "user", content: pictures });
  if (texts.length > 0) chat.push({ role: "user", content: joinText(texts) });
  return chat;
}

function imagesFollow(count: number): string {
  return count === 1
    ? "[the image of this result is in the next user message]"
    : `[the ${plural(count, "image")} of this result are in the next user message]`;
}

export function dataUrl(image: ImageBlock): string {
  return `data:${image.mediaType};base64,${image.data}`;
}

/**
 * A call whose arguments were not a JSON object was kept as the raw string so the toolbox could
 * reject it; it goes back as "{}" because some servers (Ollama) parse the arguments in the
 * history and answer 400 to invalid JSON. The tool result already quotes what was wrong. The
 * Responses API takes calls back the same way (responses-request.ts).
 */
export function argumentsOf(input: unknown): string {
  const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
  return isObject ? JSON.stringify(input) : "{}";
}

export function joinText(blocks: TextBlock[]): string {
  return blocks.map((block) => block.text).join("\n\n");
}

// Our Anthropic-shaped conversation, written as the input items of a Responses API request.
// The two map one to one: user text becomes a user message item, each tool_use a
// `function_call` item and each tool_result a `function_call_output` item with the same
// call_id, assistant text an assistant message item. The Responses API's own reasoning items
// (kept as opaque blocks) go back exactly as they came, in their place, so that each comes
// before the items it preceded: with `store: false` they are how the model's reasoning reaches
// the next request. See https://developers.openai.com/api/docs/guides/reasoning (keeping
// reasoning items in context, encrypted reasoning items).

import type {
  EasyInputMessage,
  FunctionTool,
  ResponseFunctionCallOutputItemList,
  ResponseFunctionToolCall,
  ResponseInputItem,
  WebSearchTool,
} from "openai/resources/responses/responses";
import type {
  AssistantBlock,
  AssistantMessage,
  Message,
  TextBlock,
  ToolResultContent,
  UserMessage,
} from "../core/messages.js";
import { argumentsOf, dataUrl, joinText } from "./openai-request.js";
import type { ToolDefinition } from "./provider.js";
import { isWebSearch } from "./server-tools.js";

/**
 * `model` is the request's: reasoning belongs to the model that wrote it, so an assistant
 * message another model wrote goes without its reasoning items.
 */
export function toResponsesInput(messages: Message[], model: string): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === "assistant") input.push(...assistantItems(message, model));
    else input.push(...userItems(message));
  }
  return input;
}

/**
 * `strict: false` on purpose. The Responses API makes functions strict unless told otherwise,
 * and strict mode wants every property listed in `required` and `additionalProperties: false`
 * on every object (https://developers.openai.com/api/docs/guides/function-calling, strict
 * mode). Our tools have optional parameters (bash's `timeout`) and MCP servers bring schemas
 * of their own; the toolbox validates every input itself and answers a bad one with an error.
 * The web search tool goes as OpenAI's hosted `web_search`, which runs on OpenAI's servers
 * (https://developers.openai.com/api/docs/guides/tools-web-search).
 */
export function toResponsesTools(tools: ToolDefinition[]): (FunctionTool | WebSearchTool)[] {
  return tools.map((tool) =>
    isWebSearch(tool)
      ? WEB_SEARCH
      : {
          type: "function",
          name: tool.name,
          description: tool.description,
          parameters: { ...tool.input_schema },
          strict: false,
        },
  );
}

const WEB_SEARCH: WebSearchTool = { type: "web_search" };

function assistantItems(message: AssistantMessage, model: string): ResponseInputItem[] {
  const ownReasoning = message.model === undefined || message.model === model;
  const items: ResponseInputItem[] = [];
  for (const [index, block] of message.content.entries()) {
    switch (block.type) {
      case "text":
        items.push(assistantText(block.text));
        break;
      case "tool_use":
        items.push(functionCall(block.id, block.name, block.input));
        break;
      case "opaque":
        // A reasoning item must be followed by the item it led to; one whose reply was cut off
        // before anything else came is left out, or the API rejects the request. A hosted
        // search's item (web_search_call) goes back as it came, with its model's reasoning: its
        // id binds it to that reasoning, as a call's would.
        if (
          block.protocol === "responses" &&
          ownReasoning &&
          (block.item.type !== "reasoning" || leadsSomewhere(message.content, index))
        ) {
          items.push(block.item as unknown as ResponseInputItem);
        }
        break;
      // Another protocol's reasoning means nothing to this one.
      case "thinking":
      case "redacted_thinking":
        break;
    }
  }
  return items;
}

function leadsSomewhere(content: AssistantBlock[], index: number): boolean {
  return content
    .slice(index + 1)
    .some(
      (block) =>
        block.type === "text" ||
        block.type === "tool_use" ||
        (block.type === "opaque" && block.item.type !== "reasoning"),
    );
}

function assistantText(text: string): EasyInputMessage {
  return { type: "message", role: "assistant", content: text };
}

/**
 * Without the item's own id: ids pair an item with the reasoning item it came with, and an
 * item without one is bound to none, so no pairing rule can fail on a call we send back.
 */
function functionCall(callId: string, name: string, input: unknown): ResponseFunctionToolCall {
  return { type: "function_call", call_id: callId, name, arguments: argumentsOf(input) };
}

/** Tool results first, each its own item in order; any text the user added comes after. */
function userItems(message: UserMessage): ResponseInputItem[] {
  if (typeof message.content === "string") return [userText(message.content)];
  const items: ResponseInputItem[] = [];
  const texts: TextBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") texts.push(block);
    else
      items.push({
        type: "function_call_output",
        call_id: block.tool_use_id,
        output: outputOf(block.content),
      });
  }
  if (texts.length > 0) items.push(userText(joinText(texts)));
  return items;
}

/**
 * A function call's output may be a list of `input_text` and `input_image` parts (the SDK's
 * ResponseFunctionCallOutputItemList; an image as a base64 data URL), so images stay with
 * their call here.
 */
function outputOf(content: ToolResultContent): string | ResponseFunctionCallOutputItemList {
  if (typeof content === "string") return content;
  return content.map((part) =>
    part.type === "text"
      ? { type: "input_text", text: part.text }
      : { type: "input_image", image_url: dataUrl(part), detail: "auto" },
  );
}

function userText(text: string): EasyInputMessage {
  return { type: "message", role: "user", content: text };
}

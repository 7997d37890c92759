// Checks a Responses API request the way OpenAI does, in its words, so that a transcript the
// provider gets wrong fails a test here instead of a user's session: every function_call_output
// answers an earlier function_call and every function_call is answered; a reasoning item comes
// back unmodified (its encrypted content intact, for the model that wrote it) and followed by
// an item; an item the fake sent with a reasoning item never comes back without it; a hosted
// search's item comes back exactly as it went; tools and items are well formed.

import { imageProblem, splitDataUrl } from "./fake-image-check.js";
import type { ReasoningRegistry } from "./fake-openai-responses.js";
import { HOSTED_SEARCH_TYPES, problemWithSearchItem } from "./fake-openai-search.js";

interface InputItem {
  type?: unknown;
  id?: unknown;
  role?: unknown;
  content?: unknown;
  call_id?: unknown;
  name?: unknown;
  arguments?: unknown;
  output?: unknown;
  encrypted_content?: unknown;
}

/** A refusal in OpenAI's words, with the parameter it names. */
export interface Problem {
  message: string;
  param: string | null;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function problemWithResponsesRequest(
  body: Record<string, unknown>,
  registry: ReasoningRegistry,
): Problem | null {
  if (typeof body.model !== "string" || body.model === "")
    return at("model", "Missing required parameter: 'model'.");
  if (body.stream !== true)
    return at("stream", "this fake server only streams: set stream to true");
  if (body.instructions !== undefined && typeof body.instructions !== "string") {
    return at("instructions", "Invalid type for 'instructions': expected a string.");
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools))
      return at("tools", "Invalid type for 'tools': expected an array.");
    for (const [index, tool] of (body.tools as Record<string, unknown>[]).entries()) {
      const problem = problemWithTool(tool);
      if (problem) return at(`tools[${index}]`, problem);
    }
  }
  if (!Array.isArray(body.input) || body.input.length === 0) {
    return at("input", "Invalid 'input': empty array. Expected an array with minimum length 1.");
  }
  return problemWithItems(body.input as InputItem[], body.model, registry);
}

function problemWithTool(tool: Record<string, unknown>): string | null {
  if (HOSTED_SEARCH_TYPES.includes(String(tool.type))) {
    const known = ["type", "filters", "search_context_size", "user_location"];
    const unknown = Object.keys(tool).find((key) => !known.includes(key));
    return unknown === undefined ? null : `Unknown parameter: 'tools[].${unknown}'.`;
  }
  if (tool.type !== "function")
    return "only function and web_search tools are supported by this fake";
  if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
    return "Invalid 'name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.";
  }
  const parameters = tool.parameters as { type?: unknown } | undefined;
  if (parameters?.type !== "object")
    return "Invalid schema: parameters must be a JSON schema object.";
  return null;
}

function problemWithItems(
  items: InputItem[],
  model: string,
  registry: ReasoningRegistry,
): Problem | null {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [index, item] of items.entries()) {
    const where = `input[${index}]`;
    const problem = problemWithItem(
      item,
      where,
      items[index - 1],
      items[index + 1],
      model,
      registry,
    );
    if (problem) return problem;
    if (item.type === "function_call") calls.add(item.call_id as string);
    if (item.type === "function_call_output") {
      if (!calls.has(item.call_id as string)) {
        return at(
          "input",
          `No tool call found for function call output with call_id ${item.call_id}.`,
        );
      }
      answered.add(item.call_id as string);
    }
  }
  for (const call of calls) {
    if (!answered.has(call)) return at("input", `No tool output found for function call ${call}.`);
  }
  return null;
}

function problemWithItem(
  item: InputItem,
  where: string,
  previous: InputItem | undefined,
  next: InputItem | undefined,
  model: string,
  registry: ReasoningRegistry,
): Problem | null {
  const type = item.type ?? (item.role !== undefined ? "message" : undefined);
  switch (type) {
    case "message":
      if (!["user", "assistant", "system", "developer"].includes(item.role as string)) {
        return at(
          `${where}.role`,
          `Invalid value: '${item.role}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
        );
      }
      if (typeof item.content !== "string" && !Array.isArray(item.content)) {
        return at(
          `${where}.content`,
          "Invalid type: expected a string or an array of content parts.",
        );
      }
      return withoutItsReasoning(item, "message", previous, registry);
    case "function_call":
      if (typeof item.call_id !== "string" || item.call_id === "")
        return at(`${where}.call_id`, "Missing required parameter: 'call_id'.");
      if (typeof item.name !== "string" || !TOOL_NAME.test(item.name))
        return at(`${where}.name`, "Invalid 'name'.");
      if (typeof item.arguments !== "string")
        return at(`${where}.arguments`, "Invalid type for 'arguments': expected a string.");
      return withoutItsReasoning(item, "function_call", previous, registry);
    case "function_call_output":
      if (typeof item.call_id !== "string")
        return at(`${where}.call_id`, "Missing required parameter: 'call_id'.");
      if (typeof item.output !== "string" && !Array.isArray(item.output)) {
        return at(`${where}.output`, "Invalid type for 'output': expected a string or an array.");
      }
      return typeof item.output === "string" ? null : problemWithOutputParts(item.output, where);
    case "reasoning":
      return problemWithReasoning(item, where, next, model, registry);
    case "web_search_call": {
      const problem = problemWithSearchItem(item as Record<string, unknown>, registry.searches);
      if (problem) return at(where, problem);
      return withoutItsReasoning(item, "web_search_call", previous, registry);
    }
    default:
      return at(`${where}.type`, `Invalid value: '${String(type)}'.`);
  }
}

function problemWithReasoning(
  item: InputItem,
  where: string,
  next: InputItem | undefined,
  model: string,
  registry: ReasoningRegistry,
): Problem | null {
  const id = String(item.id);
  if (typeof item.encrypted_content !== "string") {
    return at(
      where,
      `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
    );
  }
  const issued = registry.issued.get(id);
  if (!issued || issued.encryptedContent !== item.encrypted_content || issued.model !== model) {
    return at(where, `The encrypted content for item ${id} could not be verified.`);
  }
  if (next === undefined || next.type === "reasoning" || next.type === "function_call_output") {
    return at(
      "input",
      `Item '${id}' of type 'reasoning' was provided without its required following item.`,
    );
  }
  return null;
}

/** An item sent under the id the fake gave it must come right after its reasoning item. */
function withoutItsReasoning(
  item: InputItem,
  type: string,
  previous: InputItem | undefined,
  registry: ReasoningRegistry,
): Problem | null {
  if (typeof item.id !== "string") return null;
  const reasoning = registry.ledBy.get(item.id);
  if (reasoning === undefined) return null;
  const before = previous?.type === "reasoning" ? previous.id : undefined;
  const chain =
    before === reasoning ||
    registry.issued.get(reasoning)?.followers.includes(String(previous?.id));
  if (chain) return null;
  return at(
    "input",
    `Item '${item.id}' of type '${type}' was provided without its required 'reasoning' item: '${reasoning}'.`,
  );
}

/** A function call's output as a list: input_text and input_image parts, images as data URLs. */
function problemWithOutputParts(parts: unknown[], where: string): Problem | null {
  for (const [index, part] of (
    parts as { type?: unknown; text?: unknown; image_url?: unknown }[]
  ).entries()) {
    const path = `${where}.output[${index}]`;
    if (part.type === "input_text") {
      if (typeof part.text !== "string")
        return at(`${path}.text`, "Invalid type for 'text': expected a string.");
      continue;
    }
    if (part.type !== "input_image")
      return at(`${path}.type`, `Invalid value: '${String(part.type)}'.`);
    const image = splitDataUrl(part.image_url);
    if (!image)
      return at(`${path}.image_url`, "Invalid image_url: expected a base64-encoded data URL.");
    const problem = imageProblem(image.mediaType, image.data);
    if (problem) return at(`${path}.image_url`, `Invalid image: ${problem}.`);
  }
  return null;
}

function at(param: string | null, message: string): Problem {
  return { message, param };
}

// Checks a Chat Completions request the way the real servers do, so that a transcript the
// provider gets wrong fails a test here instead of a user's session: every assistant tool
// call must be answered by a `tool` message before anything else is said, a `tool` message
// must answer a call that is waiting, and tool definitions and calls must be well formed.
// Arguments must be a JSON object, as Ollama requires (OpenAI itself only wants a string).
// A tool message carries text; images come in user messages (fake-image-check.ts checks them).

import { imageProblem, splitDataUrl } from "./fake-image-check.js";

interface ChatMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

interface ToolCall {
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Returns what is wrong with the request in OpenAI's words, or null when it is valid. */
export function problemWithRequest(body: Record<string, unknown>): string | null {
  if (typeof body.model !== "string" || body.model === "") return "you must provide a model";
  if (body.stream !== true) return "this fake server only streams: set stream to true";
  const tools = body.tools;
  if (tools !== undefined && needsResponsesForTools(body.model, body.reasoning_effort)) {
    return `Function tools with reasoning_effort are not supported for ${body.model} in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.`;
  }
  if (tools !== undefined) {
    if (!Array.isArray(tools) || tools.length === 0) return "tools: [] is too short";
    for (const [index, tool] of tools.entries()) {
      const problem = problemWithTool(tool);
      if (problem) return `tools[${index}]: ${problem}`;
    }
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return "messages: [] is too short";
  }
  return problemWithMessages(body.messages as ChatMessage[]);
}

/**
 * OpenAI's reasoning models of 2026 take function tools on Chat Completions only with reasoning
 * off, and GPT-6.1 and later (which cannot switch it off) not at all.
 */
function needsResponsesForTools(model: string, effort: unknown): boolean {
  if (/^gpt-6\.[1-9]/.test(model)) return true;
  return /^gpt-(5\.6|6)(-|$)/.test(model) && effort !== "none";
}

function problemWithTool(tool: {
  type?: unknown;
  function?: { name?: unknown; parameters?: { type?: unknown } };
}): string | null {
  if (tool.type !== "function") return "only function tools are supported";
  if (typeof tool.function?.name !== "string" || !TOOL_NAME.test(tool.function.name)) {
    return "function.name must match ^[a-zA-Z0-9_-]{1,64}$";
  }
  if (tool.function.parameters?.type !== "object") return "parameters must be a JSON schema object";
  return null;
}

function problemWithMessages(messages: ChatMessage[]): string | null {
  let waiting = new Set<string>();
  for (const [index, message] of messages.entries()) {
    const where = `messages[${index}]`;
    if (message.role !== "tool" && waiting.size > 0) {
      return unanswered(waiting);
    }
    switch (message.role) {
      case "system":
      case "developer":
        if (typeof message.content !== "string" && !Array.isArray(message.content)) {
          return `${where}.content must be a string or an array of parts`;
        }
        break;
      case "user": {
        if (typeof message.content === "string") break;
        if (!Array.isArray(message.content)) {
          return `${where}.content must be a string or an array of parts`;
        }
        const problem = problemWithUserParts(message.content, where);
        if (problem) return problem;
        break;
      }
      case "assistant": {
        const calls = message.tool_calls;
        if (calls !== undefined && (!Array.isArray(calls) || calls.length === 0)) {
          return `${where}.tool_calls: [] is too short`;
        }
        const hasText = typeof message.content === "string" && message.content !== "";
        if (!hasText && calls === undefined) {
          return `${where}: an assistant message must have content or tool_calls`;
        }
        const ids = (calls ?? []) as ToolCall[];
        for (const [position, call] of ids.entries()) {
          const problem = problemWithToolCall(call);
          if (problem) return `${where}.tool_calls[${position}]: ${problem}`;
        }
        waiting = new Set(ids.map((call) => call.id as string));
        if (waiting.size !== ids.length) return `${where}: tool_calls ids must be unique`;
        break;
      }
      case "tool":
        if (typeof message.tool_call_id !== "string" || !waiting.has(message.tool_call_id)) {
          return `Invalid parameter: ${where} with role 'tool' must be a response to a preceeding message with 'tool_calls' (unknown tool_call_id ${JSON.stringify(message.tool_call_id)})`;
        }
        if (typeof message.content !== "string") return `${where}.content must be a string`;
        waiting.delete(message.tool_call_id);
        break;
      default:
        return `${where}.role: unknown role ${JSON.stringify(message.role)}`;
    }
  }
  if (waiting.size > 0) {
    return unanswered(waiting);
  }
  return null;
}

/** A user message's parts: text, and images as `image_url` data URLs the server can decode. */
function problemWithUserParts(parts: unknown[], where: string): string | null {
  for (const [index, part] of (
    parts as { type?: unknown; text?: unknown; image_url?: { url?: unknown } }[]
  ).entries()) {
    const path = `${where}.content[${index}]`;
    if (part.type === "text") {
      if (typeof part.text !== "string") return `${path}.text must be a string`;
      continue;
    }
    if (part.type !== "image_url")
      return `${path}.type: unknown content part type ${JSON.stringify(part.type)}`;
    const image = splitDataUrl(part.image_url?.url);
    if (!image) return `${path}.image_url.url: expected a base64-encoded data URL`;
    const problem = imageProblem(image.mediaType, image.data);
    if (problem) return `Invalid image in ${path}: ${problem}`;
  }
  return null;
}

function unanswered(waiting: Set<string>): string {
  return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...waiting].join(", ")}`;
}

function problemWithToolCall(call: ToolCall): string | null {
  if (typeof call.id !== "string" || call.id === "") return "id must be a non-empty string";
  if (call.type !== "function") return "type must be 'function'";
  if (typeof call.function?.name !== "string" || !TOOL_NAME.test(call.function.name)) {
    return "function.name must match ^[a-zA-Z0-9_-]{1,64}$";
  }
  const args = call.function.arguments;
  if (typeof args !== "string") return "function.arguments must be a string";
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return null;
  } catch {
    // reported below
  }
  return `function.arguments must be a JSON object, got ${JSON.stringify(args)}`;
}

// The checks the real Messages API makes on a request body, with messages worded like its
// 400 invalid_request_error answers (images in tool results too: fake-image-check.ts). The
// fake server rejects what the real API would reject, so a test passing against the fake is
// evidence about the real thing.

import { imageProblem } from "./fake-image-check.js";

interface Block {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
  is_error?: unknown;
  cache_control?: unknown;
}

interface Message {
  role?: unknown;
  content?: unknown;
}

const MAX_CACHE_BREAKPOINTS = 4;

/** Returns the API's error message for an invalid request body, or null when it is valid. */
export function validateRequest(body: unknown): string | null {
  if (typeof body !== "object" || body === null) return "body: Input should be an object";
  const request = body as Record<string, unknown>;
  if (typeof request.model !== "string" || !request.model) return "model: Field required";
  if (!Number.isInteger(request.max_tokens) || (request.max_tokens as number) < 1) {
    return "max_tokens: Field required";
  }
  const messages = request.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "messages: Field required";
  return (
    checkSystem(request.system) ??
    checkTools(request.tools) ??
    checkCacheBreakpoints(request) ??
    checkMessages(messages as Message[])
  );
}

function checkSystem(system: unknown): string | null {
  if (system === undefined || typeof system === "string") return null;
  if (!Array.isArray(system)) return "system: Input should be a valid string or list";
  for (const [index, block] of (system as Block[]).entries()) {
    if (block.type !== "text") return `system.${index}.type: Input should be 'text'`;
    if (typeof block.text !== "string" || !block.text) {
      return `system.${index}.text: text content blocks must be non-empty`;
    }
  }
  return null;
}

function checkTools(tools: unknown): string | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return "tools: Input should be a valid list";
  const names = new Set<string>();
  for (const [index, tool] of (tools as Record<string, unknown>[]).entries()) {
    if (typeof tool.name !== "string" || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) {
      return `tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
    }
    if (names.has(tool.name)) return "tools: Tool names must be unique.";
    names.add(tool.name);
    // A server tool (web search) is named by its versioned type and has no schema.
    if (typeof tool.type === "string" && tool.type.startsWith("web_search_")) {
      if (tool.name !== "web_search") return `tools.${index}.name: Input should be 'web_search'`;
      continue;
    }
    const schema = tool.input_schema as { type?: unknown } | undefined;
    if (schema?.type !== "object") {
      return `tools.${index}.custom.input_schema.type: Input should be 'object'`;
    }
  }
  return null;
}

function checkCacheBreakpoints(request: Record<string, unknown>): string | null {
  const blocks = [
    ...(Array.isArray(request.tools) ? request.tools : []),
    ...(Array.isArray(request.system) ? request.system : []),
    ...(request.messages as Message[]).flatMap((m) => (Array.isArray(m.content) ? m.content : [])),
  ] as Block[];
  const found = blocks.filter((block) => block.cache_control !== undefined).length;
  if (found <= MAX_CACHE_BREAKPOINTS) return null;
  return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`;
}

function checkMessages(messages: Message[]): string | null {
  if (messages[0]?.role !== "user") return 'messages: first message must use the "user" role';
  const toolUseIds = new Set<string>();
  for (const [index, message] of messages.entries()) {
    const previous = messages[index - 1];
    const isFinal = index === messages.length - 1;
    if (message.role !== "user" && message.role !== "assistant") {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    const extra = Object.keys(message).find((key) => key !== "role" && key !== "content");
    if (extra) return `messages.${index}.${extra}: Extra inputs are not permitted`;
    if (previous?.role === message.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`;
    }
    const empty =
      (typeof message.content === "string" && message.content === "") ||
      (Array.isArray(message.content) && message.content.length === 0);
    if (empty) {
      if (isFinal && message.role === "assistant") continue;
      return `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
    }
    const problem =
      message.role === "assistant"
        ? checkAssistant(message, index, messages[index + 1], toolUseIds)
        : checkUser(message, index, previous);
    if (problem) return problem;
    if (isFinal && message.role === "assistant" && endsWithWhitespace(message)) {
      return "messages: final assistant content cannot end with trailing whitespace";
    }
  }
  return null;
}

function checkAssistant(
  message: Message,
  index: number,
  next: Message | undefined,
  toolUseIds: Set<string>,
): string | null {
  const blocks = blocksOf(message);
  const calls: string[] = [];
  for (const [position, block] of blocks.entries()) {
    const where = `messages.${index}.content.${position}`;
    const problem = checkText(block, where);
    if (problem) return problem;
    if (block.type === "tool_result") return `${where}: tool_result blocks are not allowed here`;
    if (block.type !== "tool_use") continue;
    if (typeof block.id !== "string" || typeof block.name !== "string") {
      return `${where}.tool_use.id: Field required`;
    }
    if (typeof block.input !== "object" || block.input === null || Array.isArray(block.input)) {
      return `${where}.tool_use.input: Input should be a valid dictionary`;
    }
    if (toolUseIds.has(block.id)) return `${where}: \`tool_use\` ids must be unique`;
    toolUseIds.add(block.id);
    calls.push(block.id);
  }
  // A server tool's call is answered by its result, in the same message.
  const searched = new Set(
    blocks
      .filter((block) => block.type === "web_search_tool_result")
      .map((block) => block.tool_use_id),
  );
  const lone = blocks.find((block) => block.type === "server_tool_use" && !searched.has(block.id));
  if (lone) {
    return `messages.${index}: \`server_tool_use\` ids were found without \`web_search_tool_result\` blocks: ${String(lone.id)}`;
  }
  const answered = new Set(
    blocksOf(next ?? {})
      .filter((block) => next?.role === "user" && block.type === "tool_result")
      .map((block) => block.tool_use_id),
  );
  const unanswered = calls.filter((id) => !answered.has(id));
  if (unanswered.length === 0) return null;
  return `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
}

function checkUser(message: Message, index: number, previous: Message | undefined) {
  const calls = new Set(
    blocksOf(previous ?? {})
      .filter((block) => block.type === "tool_use")
      .map((block) => block.id),
  );
  const results = new Set<unknown>();
  let seenOtherContent = false;
  for (const [position, block] of blocksOf(message).entries()) {
    const where = `messages.${index}.content.${position}`;
    const problem = checkText(block, where);
    if (problem) return problem;
    if (
      block.type === "tool_use" ||
      block.type === "thinking" ||
      block.type === "redacted_thinking"
    ) {
      return `${where}: ${String(block.type)} blocks are not allowed here`;
    }
    if (block.type !== "tool_result") {
      seenOtherContent = true;
      continue;
    }
    if (seenOtherContent) {
      return `${where}: \`tool_result\` blocks must come before any other content in a user message`;
    }
    if (!calls.has(block.tool_use_id)) {
      return `${where}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
    if (results.has(block.tool_use_id)) {
      return `${where}: each \`tool_use\` must have a single result. Found multiple \`tool_result\` blocks with id: ${String(block.tool_use_id)}`;
    }
    results.add(block.tool_use_id);
    if (block.is_error === true && (block.content === "" || block.content === undefined)) {
      return `${where}.tool_result: content cannot be empty if \`is_error\` is true`;
    }
    const contentProblem = problemWithResultContent(block.content, where);
    if (contentProblem) return contentProblem;
  }
  return null;
}

/** A tool_result's content: a string, or text and image blocks (base64 sources checked). */
function problemWithResultContent(content: unknown, where: string): string | null {
  if (typeof content === "string" || content === undefined) return null;
  if (!Array.isArray(content)) return `${where}.tool_result.content: Input should be a valid list`;
  for (const [index, part] of (content as Block[]).entries()) {
    const path = `${where}.tool_result.content.${index}`;
    if (part.type === "text") {
      if (typeof part.text !== "string" || part.text === "") {
        return `${path}.text: text content blocks must be non-empty`;
      }
      continue;
    }
    if (part.type !== "image") {
      return `${path}.type: Input tag '${String(part.type)}' found using 'type' does not match any of the expected tags`;
    }
    const source = (part as { source?: unknown }).source as
      | { type?: unknown; media_type?: unknown; data?: unknown }
      | undefined;
    if (source?.type !== "base64") return `${path}.image.source.type: Input should be 'base64'`;
    const problem = imageProblem(source.media_type, source.data);
    if (problem) return `${path}.image.source.base64: ${problem}`;
  }
  return null;
}

function checkText(block: Block, where: string): string | null {
  const known = [
    "text",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
  ];
  if (!known.includes(block.type as string)) {
    return `${where}.type: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags`;
  }
  if (block.type !== "text") return null;
  if (typeof block.text !== "string" || block.text === "") {
    return `${where}.text: text content blocks must be non-empty`;
  }
  if (block.text.trim() === "") {
    return `${where}.text: text content blocks must contain non-whitespace text`;
  }
  return null;
}

function blocksOf(message: Message): Block[] {
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? (message.content as Block[]) : [];
}

function endsWithWhitespace(message: Message): boolean {
  const last = blocksOf(message).at(-1);
  return last?.type === "text" && typeof last.text === "string" && /\s$/.test(last.text);
}

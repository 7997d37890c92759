// The conversation, in the shape the Anthropic Messages API uses. Every provider converts
// to and from this shape at its boundary, so the loop speaks one language.

export interface TextBlock {
  type: "text";
  text: string;
}

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** The image types every provider agentloop speaks accepts (see docs/images.md). */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** An image a tool returned: the encoded file's bytes in base64, already within the APIs' limits. */
export interface ImageBlock {
  type: "image";
  mediaType: ImageMediaType;
  data: string;
}

export type ToolResultPart = TextBlock | ImageBlock;

/** What a tool returned: text, or text and images in the order the tool gave them. */
export type ToolResultContent = string | ToolResultPart[];

export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: ToolResultContent;
  is_error?: boolean;
}

/**
 * The model's reasoning before it answers or calls a tool. Anthropic signs each block
 * (`signature`), and a signed block must go back unmodified; a block without a signature
 * came from a server that does not sign (DeepSeek's `reasoning_content`, vLLM, Qwen ...).
 */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature?: string;
}

/** Reasoning the provider encrypted: only its `data` travels, and it goes back as it came. */
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

/**
 * A part of a reply that agentloop does not interpret (a Responses API reasoning item, an
 * Anthropic block type that is newer than this code): kept in order and sent back unchanged
 * to the protocol that made it, never to another. `thinking` is what a person may read of it
 * (a reasoning summary), shown as thinking.
 */
export interface OpaqueBlock {
  type: "opaque";
  protocol: "anthropic" | "responses";
  item: Record<string, unknown>;
  thinking?: string;
}

/** Blocks that only reasoning models write; none of them is the answer. */
export type ReasoningBlock = ThinkingBlock | RedactedThinkingBlock | OpaqueBlock;

export type AssistantBlock = TextBlock | ToolUseBlock | ReasoningBlock;
export type UserBlock = TextBlock | ToolResultBlock;

export interface UserMessage {
  role: "user";
  content: string | UserBlock[];
}

export interface AssistantMessage {
  role: "assistant";
  content: AssistantBlock[];
  /**
   * The model that wrote the message, when a provider recorded it. Reasoning blocks are bound
   * to that model: they are not sent to another (see transcript-reasoning.ts).
   */
  model?: string;
}

export type Message = UserMessage | AssistantMessage;

/** Why the model stopped talking, as the provider reported it (mapped onto Anthropic's names). */
export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "pause_turn"
  | "refusal"
  | "unknown";

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export const emptyUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
});

export function addUsage(total: Usage, more: Usage): Usage {
  return {
    input_tokens: total.input_tokens + more.input_tokens,
    output_tokens: total.output_tokens + more.output_tokens,
    cache_read_input_tokens: total.cache_read_input_tokens + more.cache_read_input_tokens,
    cache_creation_input_tokens:
      total.cache_creation_input_tokens + more.cache_creation_input_tokens,
  };
}

/** Every input token of a request, cached or not. */
export function inputTokensOf(usage: Usage): number {
  return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
}

export function toolUses(message: AssistantMessage): ToolUseBlock[] {
  return message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
}

export function isReasoning(block: AssistantBlock): block is ReasoningBlock {
  return block.type === "thinking" || block.type === "redacted_thinking" || block.type === "opaque";
}

/** A call without a name is answered by no tool and rejected by servers (transcript/repair.ts). */
export function hasName(use: ToolUseBlock): boolean {
  return typeof use.name === "string" && use.name.trim() !== "";
}

export function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((block): block is TextBlock => block.type === "text")
    .map((block) => block.text)
    .join("");
}

/** A result's text, its parts joined by new lines; images leave no trace in it. */
export function resultText(content: ToolResultContent): string {
  if (typeof content === "string") return content;
  return content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

export function resultImages(content: ToolResultContent): ImageBlock[] {
  if (typeof content === "string") return [];
  return content.filter((part): part is ImageBlock => part.type === "image");
}

/** The content with `more` added at the end of its text (a note for the model). */
export function withTextAdded(content: ToolResultContent, more: string): ToolResultContent {
  if (typeof content === "string") return content + more;
  const last = content.at(-1);
  if (last?.type === "text") return [...content.slice(0, -1), { ...last, text: last.text + more }];
  return [...content, { type: "text", text: more.trimStart() }];
}

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

export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

export type AssistantBlock = TextBlock | ToolUseBlock;
export type UserBlock = TextBlock | ToolResultBlock;

export interface UserMessage {
  role: "user";
  content: string | UserBlock[];
}

export interface AssistantMessage {
  role: "assistant";
  content: AssistantBlock[];
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

/** A call without a name is answered by no tool and rejected by servers (transcript.ts). */
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

// How the fake Chat Completions server thinks, the way DeepSeek V4's thinking mode does (on by
// default): every reply streams `reasoning_content` before its answer, and an assistant
// message that made tool calls must carry its reasoning_content in every later request, or the
// request is refused with DeepSeek's 400. Source: https://api-docs.deepseek.com/guides/thinking_mode

import type { FakeReply } from "./fake-openai-chunks.js";

/** DeepSeek's words for a tool-calling history whose reasoning was not sent back. */
export const REASONING_NOT_PASSED_BACK =
  "The reasoning_content in the thinking mode must be passed back to the API.";

/** Whether the request's model reasons before it answers. */
export function reasons(body: Record<string, unknown>): boolean {
  const thinking = body.thinking as { type?: unknown } | undefined;
  if (thinking?.type === "disabled") return false;
  return typeof body.model === "string" && /^deepseek-(flash|v4)/.test(body.model);
}

export function problemWithReasoning(body: Record<string, unknown>): string | null {
  if (!reasons(body) || !Array.isArray(body.messages)) return null;
  for (const message of body.messages as Record<string, unknown>[]) {
    if (message.role !== "assistant" || !Array.isArray(message.tool_calls)) continue;
    const reasoning = message.reasoning_content;
    if (typeof reasoning !== "string" || reasoning === "") return REASONING_NOT_PASSED_BACK;
  }
  return null;
}

/** A reply of a model that reasons: its own scripted reasoning, or a line of it. */
export function withReasoning<Reply extends FakeReply>(
  reply: Reply,
  body: Record<string, unknown>,
  number: number,
): Reply {
  if (reply.reasoning !== undefined || !reasons(body)) return reply;
  return { ...reply, reasoning: `Working out request ${number}.` };
}

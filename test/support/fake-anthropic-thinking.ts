// How the fake Messages API thinks, the way the Claude 5 models do: a model that thinks by
// default starts every reply with a signed thinking block (its text left out under Sonnet 5.5's
// default `display: "omitted"`), and a request is checked by the rules the real API applies to
// thinking, with its 400 messages: a signature must match the text it signed and the model it
// was made for; the last assistant message of a tool-use cycle must start with its thinking;
// and what a model rejects (a `disabled` Sonnet 5.5, sampling parameters, a forced tool choice,
// an assistant prefill) is refused.

import { createHmac } from "node:crypto";

const SECRET = "fake-anthropic-thinking";

/** Models that think when a request says nothing about thinking (the Claude 5 family). */
export function thinksByDefault(model: string): boolean {
  return /^claude-(sonnet|opus|haiku)-5|^claude-fable-/.test(model);
}

/** Sonnet 5.5 and the 5.5 models: no `disabled`, no forced tool, no prefill, omitted display. */
function isFivePointFive(model: string): boolean {
  return /^claude-(sonnet|opus|haiku)-5-5/.test(model);
}

/** The signature of a thinking block as shown, bound to the model that wrote it. */
export function signThinking(model: string, shown: string): string {
  const mac = createHmac("sha256", SECRET).update(`${model}\u0000${shown}`).digest("base64");
  return `Ev${mac}`;
}

export function redactedData(model: string, number: number): string {
  return `Red.${number}.${signThinking(model, `redacted ${number}`)}`;
}

function isRedactedData(model: string, data: string): boolean {
  const number = Number(data.split(".")[1]);
  return Number.isInteger(number) && data === redactedData(model, number);
}

export interface ThinkingRequest {
  model: string;
  thinking?: { type?: string; display?: string };
  temperature?: unknown;
  top_p?: unknown;
  top_k?: unknown;
  tool_choice?: { type?: string };
  messages: { role: string; content: unknown }[];
}

/** Whether this request makes the model think before it answers. */
export function thinkingOn(body: ThinkingRequest): boolean {
  const type = body.thinking?.type;
  if (type === "disabled" || type === "between_tools") return false;
  return type === "adaptive" || type === "enabled" || thinksByDefault(body.model);
}

/** What the model shows of its thinking: nothing under Sonnet 5.5's default display. */
export function shownThinking(body: ThinkingRequest, thinking: string): string {
  const display =
    body.thinking?.display ?? (isFivePointFive(body.model) ? "omitted" : "summarized");
  return display === "omitted" ? "" : thinking;
}

type Block = { type?: unknown; [field: string]: unknown };

/** The API's 400 message for what this request does wrong with thinking, or null. */
export function checkThinking(body: ThinkingRequest): string | null {
  const model = body.model;
  if (thinksByDefault(model)) {
    for (const name of ["temperature", "top_p", "top_k"] as const) {
      if (body[name] !== undefined) {
        return `\`${name}\` is not supported for ${model}: this model samples at its own settings.`;
      }
    }
  }
  if (isFivePointFive(model)) {
    if (body.thinking?.type === "disabled") {
      return `thinking.type: 'disabled' is not supported for ${model}. Use 'between_tools' to turn off up-front thinking.`;
    }
    const choice = body.tool_choice?.type;
    if (choice === "any" || choice === "tool") {
      return `tool_choice: forced tool use is not supported for ${model}; use 'auto' or 'none'.`;
    }
    if (body.messages.at(-1)?.role === "assistant") {
      return `This model does not support assistant message prefill. The conversation must end with a user message.`;
    }
  }
  for (const [index, message] of body.messages.entries()) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const [position, block] of (message.content as Block[]).entries()) {
      const where = `messages.${index}.content.${position}`;
      if (block.type === "thinking") {
        if (typeof block.signature !== "string" || block.signature === "") {
          return `${where}.thinking.signature: Field required`;
        }
        if (block.signature !== signThinking(model, String(block.thinking))) {
          return `${where}: Invalid \`signature\` in \`thinking\` block`;
        }
      } else if (block.type === "redacted_thinking") {
        if (!isRedactedData(model, String(block.data))) {
          return `${where}: Invalid \`data\` in \`redacted_thinking\` block`;
        }
      }
    }
  }
  return thinkingOn(body) ? checkCycleStartsWithThinking(body.messages) : null;
}

/**
 * With thinking on, the assistant message before the last set of tool results must start with
 * the thinking that came with it.
 */
function checkCycleStartsWithThinking(messages: ThinkingRequest["messages"]): string | null {
  const last = messages.at(-1);
  if (last?.role !== "user" || !Array.isArray(last.content)) return null;
  if (!(last.content as Block[]).some((block) => block.type === "tool_result")) return null;
  const index = messages.length - 2;
  const assistant = messages[index];
  if (assistant?.role !== "assistant" || !Array.isArray(assistant.content)) return null;
  const first = (assistant.content as Block[])[0];
  if (first?.type === "thinking" || first?.type === "redacted_thinking") return null;
  return (
    `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. ` +
    "When `thinking` is enabled, a final `assistant` message must start with a thinking block " +
    "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include " +
    "thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please " +
    "consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
  );
}

// The Messages API's thinking settings for one model, from the user's choice and the model
// table. What a model rejects is never sent: a choice it cannot take is a ConfigError before the
// first request, in one sentence. Sources: each model's page on platform.claude.com (Sonnet
// 5.5 rejects `disabled` and takes `between_tools`, at effort high or lower; Opus 5 disables
// thinking only at effort high or lower; Opus 5.5 and Fable always think).

import type {
  OutputConfig,
  ThinkingConfigParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { ConfigError } from "../core/errors.js";
import { modelFacts } from "./model-table.js";
import type { ThinkingOptions } from "./thinking-options.js";

export interface AnthropicThinking {
  thinking?: ThinkingConfigParam;
  output_config?: OutputConfig;
}

/** Effort levels at which thinking may be turned off or down to between_tools. */
const CAN_TURN_OFF_AT = new Set(["low", "medium", "high"]);

export function anthropicThinking(model: string, choice: ThinkingOptions): AnthropicThinking {
  const facts = modelFacts(model);
  const style = facts?.thinking;
  const params: AnthropicThinking = {};
  if (choice.effort !== undefined) {
    if (facts && !facts.effort) {
      throw new ConfigError(`${model} takes no effort level: leave out --effort.`);
    }
    params.output_config = { effort: choice.effort };
  }
  const summarized = choice.showThinking ? { display: "summarized" as const } : {};
  if (choice.thinking === "off") {
    if (style === "always") {
      throw new ConfigError(`${model} always thinks: --thinking off does not apply to it.`);
    }
    if (style === "off") return params;
    if (choice.effort !== undefined && !CAN_TURN_OFF_AT.has(choice.effort)) {
      throw new ConfigError(
        `--thinking off works with --effort low, medium or high; ${model} thinks at ${choice.effort}.`,
      );
    }
    params.thinking = { type: style === "between_tools" ? "between_tools" : "disabled" };
    return params;
  }
  if (choice.thinking === "adaptive" && style === "off") {
    throw new ConfigError(
      `${model} does not think adaptively: --thinking adaptive needs a model that does, such as claude-sonnet-5-5.`,
    );
  }
  const thinks = style !== undefined && style !== "off" && style !== "reasoning";
  if (choice.thinking === "adaptive" || (thinks && choice.showThinking)) {
    params.thinking = { type: "adaptive", ...summarized };
  }
  return params;
}

/**
 * The settings for a request whose open tool-use cycle has no thinking to send back (it was
 * written by another model, or by one that did not think): with thinking on, the API refuses
 * it ("a final assistant message must start with a thinking block") and advises turning
 * thinking off, which this request does where the model allows. A model that always thinks
 * keeps its settings, and the API's answer says what went wrong.
 */
export function withoutCycleThinking(model: string, params: AnthropicThinking): AnthropicThinking {
  const style = modelFacts(model)?.thinking;
  const thinks =
    style === "adaptive" || style === "between_tools" || params.thinking?.type === "adaptive";
  if (!thinks) return params;
  const type = style === "between_tools" ? "between_tools" : "disabled";
  return { ...params, thinking: { type } };
}

type WireBlock = { type?: unknown };

/** Whether the request ends in tool results whose call came without thinking. */
export function cycleLacksThinking(
  messages: readonly { role: string; content: string | readonly WireBlock[] }[],
): boolean {
  const last = messages.at(-1);
  const call = messages.at(-2);
  if (last?.role !== "user" || typeof last.content === "string") return false;
  if (!last.content.some((block) => block.type === "tool_result")) return false;
  if (call?.role !== "assistant" || typeof call.content === "string") return false;
  const first = call.content[0]?.type;
  return first !== "thinking" && first !== "redacted_thinking";
}

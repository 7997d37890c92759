// A model that replies from a script: each request gets the next reply. It records every
// request so tests can check exactly what the model was sent.

import {
  type AssistantBlock,
  emptyUsage,
  type Message,
  type StopReason,
  type TextBlock,
  type ToolUseBlock,
} from "../../src/core/messages.js";
import type {
  ModelReply,
  ModelRequest,
  Provider,
  StreamEvent,
} from "../../src/providers/provider.js";

export interface ScriptedReply {
  content: AssistantBlock[];
  stopReason?: StopReason;
}

export type Script = ScriptedReply | ((request: ModelRequest) => ScriptedReply | Error);

export interface ScriptedProvider extends Provider {
  /** Snapshots of the messages sent with each request. */
  requests: Message[][];
}

export interface ScriptedOptions {
  /**
   * Report input tokens as a server would count them (a token per 4 characters of the
   * request's JSON) instead of a fixed 10, for tests where the size of the history matters.
   */
  countTokens?: boolean;
}

export function scriptedProvider(
  script: Script[],
  options: ScriptedOptions = {},
): ScriptedProvider {
  const requests: Message[][] = [];
  return {
    name: "scripted",
    model: "scripted-model",
    requests,
    async *stream(request): AsyncGenerator<StreamEvent, ModelReply> {
      requests.push(structuredClone(request.messages));
      const step = script[requests.length - 1];
      if (!step) throw new Error(`the script has no reply for request ${requests.length}`);
      const reply = typeof step === "function" ? step(request) : step;
      if (reply instanceof Error) throw reply;
      for (const block of reply.content) {
        if (block.type === "text") yield { type: "text_delta", text: block.text };
      }
      const hasTools = reply.content.some((block) => block.type === "tool_use");
      return {
        message: { role: "assistant", content: structuredClone(reply.content) },
        stopReason: reply.stopReason ?? (hasTools ? "tool_use" : "end_turn"),
        rawStopReason: reply.stopReason ?? null,
        usage: {
          ...emptyUsage(),
          input_tokens: options.countTokens ? tokensOf(request) : 10,
          output_tokens: 5,
        },
      };
    },
  };
}

/** What a server would count for the request: a token per 4 characters of its JSON. */
export function tokensOf(request: Pick<ModelRequest, "system" | "messages" | "tools">): number {
  const chars =
    request.system.length +
    JSON.stringify(request.tools).length +
    request.messages.reduce((sum, message) => sum + JSON.stringify(message.content).length, 0);
  return Math.ceil(chars / 4);
}

export const text = (value: string): TextBlock => ({ type: "text", text: value });

export const bash = (id: string, command: string): ToolUseBlock => ({
  type: "tool_use",
  id,
  name: "bash",
  input: { command },
});

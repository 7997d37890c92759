// The Provider seam: one wire protocol per file in src/providers/. A provider turns a
// request into a stream of events and, when the stream ends, the complete assistant reply.

import type { AssistantMessage, Message, StopReason, Usage } from "./messages.js";
import type { ToolDefinition } from "./tool-definition.js";

export type { ToolDefinition };

export interface ModelRequest {
  system: string;
  messages: Message[];
  tools: ToolDefinition[];
  /**
   * "none": the tools stay defined (a history with tool calls needs them on Anthropic's API)
   * but the model must answer in text. Left out, the model chooses.
   */
  toolChoice?: "none";
  signal: AbortSignal;
}

export type StreamEvent =
  | { type: "text_delta"; text: string }
  /** Reasoning as it streams: shown as thinking, never as the answer. */
  | { type: "thinking_delta"; text: string }
  | { type: "retry"; attempt: number; delayMs: number; reason: string };

export interface ModelReply {
  message: AssistantMessage;
  stopReason: StopReason;
  /** The provider's own word for why it stopped, kept for messages and logs. */
  rawStopReason: string | null;
  usage: Usage;
}

export interface Provider {
  readonly name: string;
  readonly model: string;
  /** The most tokens one reply may use, when the provider sets a limit (room kept in the window). */
  readonly maxOutputTokens?: number;
  /** The model's context window in tokens, when the provider knows it (a local model does). */
  readonly contextWindow?: number;
  /** The API runs a web search on its own servers, offered as src/providers/server-tools.ts says. */
  readonly webSearch?: boolean;
  stream(request: ModelRequest): AsyncGenerator<StreamEvent, ModelReply, void>;
  /** Frees what the provider holds (a loaded model) when the session ends. */
  dispose?(): Promise<void>;
}

// Everything the loop does is announced as one of these events. The CLI renders them, the
// session writer stores them, and library users read them: one stream for every consumer.

import type {
  AssistantMessage,
  StopReason,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
  UserMessage,
} from "./messages.js";

/** Why the loop goes on to another turn. */
export type TransitionReason = "tool_result" | "max_tokens_recovery" | "pause_turn";

/** Why the loop ended. */
export type LoopStopReason =
  | "end_turn"
  | "max_turns"
  | "max_tokens"
  | "refusal"
  | "interrupted"
  | "repeated_call"
  | "max_cost"
  | "unknown_stop_reason"
  | "error";

export type LoopEvent =
  | { type: "turn_start"; turn: number }
  | { type: "text_delta"; text: string }
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | {
      type: "assistant_message";
      turn: number;
      message: AssistantMessage;
      stopReason: StopReason;
      usage: Usage;
      durationMs: number;
    }
  | { type: "tool_start"; call: ToolUseBlock }
  | { type: "tool_end"; call: ToolUseBlock; result: ToolResultBlock; durationMs: number }
  | { type: "tool_results"; turn: number; message: UserMessage }
  /** The loop asks the model to go on with an answer cut off by the output limit. */
  | { type: "continuation"; turn: number; message: UserMessage }
  | { type: "turn_end"; turn: number; transitionReason: TransitionReason | null }
  | LoopStop;

export interface LoopStop {
  type: "stop";
  reason: LoopStopReason;
  /** One sentence for a person: what happened and, for failures, what to do. */
  detail: string;
  /** The answer's text (joined across max_tokens continuations). */
  finalText: string;
  /** Set when reason is "error": which kind, so the CLI can choose an exit code. */
  error?: Error;
}

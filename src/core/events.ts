// Everything the loop does is announced as one of these events. The CLI renders them, the
// session writer stores them, and library users read them: one stream for every consumer.

import type { BackgroundTask } from "./background-task.js";
import type {
  AssistantMessage,
  Message,
  StopReason,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
  UserMessage,
} from "./messages.js";
import type { TodoItem } from "./todo-item.js";

/** Why the loop goes on to another turn. */
export type TransitionReason =
  | "tool_result"
  | "max_tokens_recovery"
  | "pause_turn"
  /** The API said the request was too long: the history was compacted and is sent again. */
  | "compact_retry"
  /** A Stop hook refused to let the answer end: the model goes on with its reason. */
  | "stop_hook";

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
  | "context_too_long"
  | "error";

export type LoopEvent =
  | { type: "turn_start"; turn: number }
  | { type: "text_delta"; text: string }
  /** The model's reasoning as it streams (thinking, reasoning_content, a reasoning summary). */
  | { type: "thinking_delta"; text: string }
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
  /**
   * The loop asks the model to go on: with an answer cut off by the output limit, or with the
   * reason a Stop hook gave for not stopping.
   */
  | { type: "continuation"; turn: number; message: UserMessage }
  | { type: "turn_end"; turn: number; transitionReason: TransitionReason | null }
  /** The model replaced its plan with todo_write: the whole list as it now stands. */
  | { type: "todos"; todos: TodoItem[] }
  | BackgroundTaskEvent
  | CompactionEvent
  | SubagentEvent
  | HookRunEvent
  | PartEvent
  | LoopStop;

/**
 * An event of a part's own (src/core/part.ts): what happened, in one line a person reads, and
 * its details for programs. The session file keeps it, stream-json prints it, and the terminal
 * and the viewer show its line, so a new part needs no new case in any of them.
 */
export interface PartEvent {
  type: "part";
  /** The part's name, as in its SessionPart. */
  part: string;
  /** What happened, in the part's words: "checkpoint", "goal_check". */
  name: string;
  /** One line for a person. */
  line: string;
  /** Details for programs. */
  data?: Record<string, unknown>;
  /**
   * The tokens of a model request the part made on its own (the goal's judge): the session
   * counts them in its usage and cost like a turn's, priced at `model`.
   */
  usage?: Usage;
  /** The model that request went to; without it, the session's. */
  model?: string;
  /**
   * What the part's doing cost beyond tokens, in US dollars (a provider's web search, priced per
   * search): the session adds it to its cost, as it adds the price of `usage`.
   */
  dollars?: number;
  /**
   * How the event moved the history, for a reader replaying the session file (the viewer):
   * `mark` names the history as it stands here (a checkpoint before a prompt); `backTo` says it
   * went back to the history a mark named (a rewind of the conversation).
   */
  history?: { mark: string } | { backTo: string };
}

/** A background task (s11) started, was told to the model as ended, or was stopped. */
export type BackgroundTaskEvent =
  | { type: "task_started"; task: BackgroundTask }
  /** The task ended and the next request carries `text`, its notice, for the model. */
  | { type: "task_notification"; task: BackgroundTask; text: string }
  /** Ended while it ran: by the task_stop tool, or because the session ended. */
  | { type: "task_stopped"; task: BackgroundTask; by: "task_stop" | "session_end" };
/** How a hook's run ended for the step it ran at (src/hooks/, docs/hooks.md). */
export type HookDecision =
  /** Exit 0 and no decision: the step goes on. */
  | "continue"
  /** Exit 0 with permissionDecision "allow": the permission question is skipped. */
  | "allow"
  /** Exit 0 with permissionDecision "ask": the call is asked about even if it would not be. */
  | "ask"
  /** Exit 2, or a JSON "block" / "deny", or a failure of a hook with onFailure "block". */
  | "block"
  /** Another exit code, a crash, a timeout or bad JSON: the step goes on, and this is shown. */
  | "error";

/** One hook ran: which, for which event, and what came of it. */
export interface HookRunEvent {
  type: "hook";
  /** Claude Code's event name: PreToolUse, PostToolUse, UserPromptSubmit, Stop, ... */
  event: string;
  command: string;
  /** Where the hook is defined: the user's settings file or the project's. */
  source: "user" | "project";
  /** Null when it was killed (timeout or interrupt) or could not start. */
  exitCode: number | null;
  durationMs: number;
  decision: HookDecision;
  /** For a block, what the model or the user is told; for an error, what went wrong. */
  reason?: string;
  /** Its stdout, when it printed one and it is not JSON for agentloop. */
  output?: string;
  /** The tool call it ran for (PreToolUse, PostToolUse). */
  toolUseId?: string;
}

/**
 * An event of a subagent's own loop, run by the `agent` tool call `parent_tool_use_id`
 * (src/agents/), the field Claude Code's stream-json names the same way. Its tokens count
 * towards the session's; its messages are in the child's own file.
 */
export interface SubagentEvent {
  type: "subagent";
  parent_tool_use_id: string;
  /** The agent's type (general, explore, a definition's name) and this run's short id. */
  agentType: string;
  agentId: string;
  /** The model the child runs on, which prices its requests. */
  model: string;
  /** The child's own session file. */
  transcript: string;
  event: LoopEvent;
}

/** What started a compaction: the budget before a request, the API's answer, or the user. */
export type CompactionTrigger = "auto" | "too_long" | "manual";

/** A tool result whose content was replaced by a one-line stub; the content is saved on disk. */
export interface ClearedResult {
  tool_use_id: string;
  stub: string;
}

/**
 * The history was made smaller. Sizes are in tokens, as estimated for the next request. The
 * event carries everything needed to redo the compaction from the session file.
 */
export type CompactionEvent = {
  type: "compaction";
  trigger: CompactionTrigger;
  tokensBefore: number;
  tokensAfter: number;
  /** The window the history was fitted into. */
  contextWindow: number;
  /** Time it took, the summary request included. */
  durationMs: number;
} & (
  | {
      /** Old tool results were replaced by stubs. */
      kind: "clear";
      cleared: ClearedResult[];
    }
  | {
      /** The model summarised the history, which now starts over from that summary. */
      kind: "summary";
      /** The request's last message: what the model was asked to write. */
      instructions: string;
      /** How many messages of the history the summary request sent. */
      summarizedCount: number;
      summary: string;
      /** The history the loop goes on with: first prompt, summary, then the recent turns. */
      messages: Message[];
      usage: Usage;
    }
);

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

/** The tokens a model request used, for the events that end one (a reply, a summary). */
export function requestUsage(event: LoopEvent): Usage | null {
  if (event.type === "assistant_message") return event.usage;
  if (event.type === "compaction" && event.kind === "summary") return event.usage;
  if (event.type === "part") return event.usage ?? null;
  return null;
}

/** What an event cost beyond the tokens of a request (PartEvent.dollars); 0 for the rest. */
export function dollarsBeyondTokens(event: LoopEvent): number {
  return event.type === "part" ? (event.dollars ?? 0) : 0;
}

/** The model that priced the request `requestUsage` found, when it is not the session's own. */
export function requestModel(event: LoopEvent): string | undefined {
  if (event.type === "subagent") return event.model;
  return event.type === "part" ? event.model : undefined;
}

// The contract for scripts: `--output-format json` prints one result object, `stream-json`
// prints every loop event as a JSON line and then the same result object. Field names follow
// what people already script against (see docs/sessions.md and schemas/).

import type { BackgroundTask } from "../core/background-task.js";
import { ConfigError, ProviderError, type ProviderErrorKind } from "../core/errors.js";
import type { LoopStop, LoopStopReason, PartEvent } from "../core/events.js";
import type { Usage } from "../core/messages.js";
import type { TodoItem } from "../core/todo-item.js";

export type ResultSubtype =
  | "success"
  | "error_max_turns"
  | "error_max_cost"
  | "error_repeated_call"
  | "error_interrupted"
  | "error_during_execution";

export interface RunResult {
  type: "result";
  subtype: ResultSubtype;
  is_error: boolean;
  result: string;
  /** Why the loop stopped (see LoopStopReason). */
  stop_reason: LoopStopReason;
  /** Present when the run did not succeed: one sentence saying why. */
  error?: string;
  /**
   * Present when stop_reason is "error": the provider's error kind (rate_limited, server, ...),
   * "config" for a setup the user must fix, or "internal".
   */
  error_kind?: ErrorKind;
  /** Model requests made in this run. */
  num_turns: number;
  usage: Usage;
  /** Null when the model's price is not known. */
  total_cost_usd: number | null;
  session_id: string;
  duration_ms: number;
  /** Present when the session has a todo list: the list as the run left it. */
  todos?: TodoItem[];
  /**
   * Present when the run started background tasks: each as it ended. Those still running when
   * the answer arrived were stopped then, with status "killed".
   */
  background_tasks?: BackgroundTask[];
  /**
   * Present when a part reported something as the run ended (what memory remembered or
   * proposed at the end of the session): its events, as stream-json printed them.
   */
  part_events?: PartEvent[];
}

export type ErrorKind = ProviderErrorKind | "config" | "internal";

export function subtypeFor(reason: LoopStopReason): ResultSubtype {
  switch (reason) {
    case "end_turn":
      return "success";
    case "max_turns":
      return "error_max_turns";
    case "max_cost":
      return "error_max_cost";
    case "repeated_call":
      return "error_repeated_call";
    case "interrupted":
      return "error_interrupted";
    case "max_tokens":
    case "refusal":
    case "unknown_stop_reason":
    case "context_too_long":
    case "error":
      return "error_during_execution";
  }
}

export function buildResult(
  stop: LoopStop,
  facts: {
    numTurns: number;
    usage: Usage;
    costUsd: number | null;
    sessionId: string;
    durationMs: number;
    todos: readonly TodoItem[];
    backgroundTasks?: readonly BackgroundTask[];
    partEvents?: readonly PartEvent[];
  },
): RunResult {
  const subtype = subtypeFor(stop.reason);
  return {
    type: "result",
    subtype,
    is_error: subtype !== "success",
    result: stop.finalText,
    stop_reason: stop.reason,
    ...(subtype === "success" ? {} : { error: stop.detail }),
    ...(stop.reason === "error" ? { error_kind: errorKindOf(stop.error) } : {}),
    num_turns: facts.numTurns,
    usage: facts.usage,
    total_cost_usd: facts.costUsd,
    session_id: facts.sessionId,
    duration_ms: Math.round(facts.durationMs),
    ...(facts.todos.length > 0 ? { todos: [...facts.todos] } : {}),
    ...(facts.backgroundTasks?.length ? { background_tasks: [...facts.backgroundTasks] } : {}),
    ...(facts.partEvents?.length ? { part_events: [...facts.partEvents] } : {}),
  };
}

function errorKindOf(error: Error | undefined): ErrorKind {
  if (error instanceof ProviderError) return error.kind;
  return error instanceof ConfigError ? "config" : "internal";
}

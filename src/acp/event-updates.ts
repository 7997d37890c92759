// The loop's events as ACP `session/update`s, in the order they happen: the answer and the
// thinking as chunks (thinking never as message text), each tool call announced pending and
// then finished with its content, and the todo list as the editor's plan.
// Updates: https://agentclientprotocol.com/protocol/v1/prompt-turn#3-agent-reports-output

import type { PlanEntry, SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import type { LoopEvent, LoopStopReason } from "../core/events.js";
import type { TodoItem } from "../core/todo-item.js";
import {
  announcedCall,
  type FileChange,
  fileBefore,
  finishedCall,
  textChunk,
} from "./tool-calls.js";

/** Turns one prompt's events into updates; it remembers each file a running call may change. */
export function createEventUpdates(cwd: string) {
  const changes = new Map<string, FileChange>();
  return (event: LoopEvent): SessionUpdate[] => {
    switch (event.type) {
      case "text_delta":
        return [textChunk("agent_message_chunk", event.text)];
      case "thinking_delta":
        return [textChunk("agent_thought_chunk", event.text)];
      case "tool_start": {
        const change = fileBefore(event.call, cwd);
        if (change) changes.set(event.call.id, change);
        return [{ sessionUpdate: "tool_call", ...announcedCall(event.call, cwd) }];
      }
      case "tool_end": {
        const change = changes.get(event.call.id) ?? null;
        changes.delete(event.call.id);
        return [{ sessionUpdate: "tool_call_update", ...finishedCall(event.result, change) }];
      }
      case "todos":
        return [{ sessionUpdate: "plan", entries: event.todos.map(planEntry) }];
      default:
        return [];
    }
  };
}

/** ACP's plan has no cancelled step: a cancelled one is shown done, and says it was cancelled. */
export function planEntry(item: TodoItem): PlanEntry {
  if (item.status === "cancelled") {
    return { content: `${item.content} (cancelled)`, priority: "medium", status: "completed" };
  }
  return { content: item.content, priority: "medium", status: item.status };
}

/**
 * Why the turn ended, in ACP's words; null where ACP has none (an error, a history too long for
 * the model): the prompt then fails with the loop's sentence.
 */
export function acpStopReason(reason: LoopStopReason): StopReason | null {
  switch (reason) {
    case "end_turn":
      return "end_turn";
    case "max_tokens":
      return "max_tokens";
    case "max_turns":
    case "max_cost":
    case "repeated_call":
      return "max_turn_requests";
    case "refusal":
      return "refusal";
    case "interrupted":
      return "cancelled";
    case "unknown_stop_reason":
    case "context_too_long":
    case "error":
      return null;
  }
}

// How a tool call looks in an editor: its title, its ACP kind (which icon it gets) and the
// files it touches, then what it produced. A write or an edit is shown as a diff of the file
// before and after; everything else as the text of its result.
// Kinds and content: https://agentclientprotocol.com/protocol/v1/tool-calls

import { readFileSync } from "node:fs";
import type {
  SessionUpdate,
  ToolCall,
  ToolCallContent,
  ToolCallLocation,
  ToolCallUpdate,
  ToolKind,
} from "@agentclientprotocol/sdk";
import type { ToolResultBlock, ToolUseBlock } from "../core/messages.js";
import { resultText } from "../core/messages.js";
import { resolveToolPath } from "../core/tool-path.js";

/** A title is one line of at most this many characters. */
const TITLE_WIDTH = 120;

const KINDS: Record<string, ToolKind> = {
  bash: "execute",
  task_stop: "execute",
  read: "read",
  write: "edit",
  edit: "edit",
  todo_write: "think",
  agent: "think",
  exit_plan_mode: "switch_mode",
};

/** The tool_call update that announces `call`, before it runs (status pending). */
export function announcedCall(call: ToolUseBlock, cwd: string): ToolCall {
  const input = call.input as Record<string, unknown>;
  const path = filePathOf(call, cwd);
  return {
    toolCallId: call.id,
    title: titleOf(call.name, input),
    kind: KINDS[call.name] ?? "other",
    status: "pending",
    locations: path ? [location(path, input)] : [],
    rawInput: input,
  };
}

/** The absolute path a file tool works on; null for the other tools. */
function filePathOf(call: ToolUseBlock, cwd: string): string | null {
  const input = call.input as Record<string, unknown>;
  if (typeof input.file_path !== "string") return null;
  return resolveToolPath(cwd, input.file_path);
}

/** The file a write or an edit is about to change, with its text now (null: no file yet). */
export function fileBefore(call: ToolUseBlock, cwd: string): FileChange | null {
  const path = call.name === "write" || call.name === "edit" ? filePathOf(call, cwd) : null;
  return path ? { path, before: currentText(path) } : null;
}

export interface FileChange {
  path: string;
  before: string | null;
}

/**
 * The update that ends a call: its status, and what it shows: the diff of the file it changed
 * (`change`, from fileBefore), or its result's text: a command's output, a file's lines, an error.
 */
export function finishedCall(result: ToolResultBlock, change: FileChange | null): ToolCallUpdate {
  const after = change && !result.is_error ? currentText(change.path) : null;
  const text = resultText(result.content);
  const content: ToolCallContent[] =
    change && after !== null
      ? [{ type: "diff", path: change.path, oldText: change.before, newText: after }]
      : text
        ? [{ type: "content", content: { type: "text", text } }]
        : [];
  return {
    toolCallId: result.tool_use_id,
    status: result.is_error ? "failed" : "completed",
    content,
  };
}

/** A piece of the answer, of the thinking or of the user's prompt. */
export function textChunk(
  kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk",
  text: string,
): SessionUpdate {
  return { sessionUpdate: kind, content: { type: "text", text } };
}

function currentText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function titleOf(name: string, input: Record<string, unknown>): string {
  const subject =
    typeof input.command === "string"
      ? input.command
      : typeof input.file_path === "string"
        ? input.file_path
        : typeof input.description === "string"
          ? input.description
          : "";
  const line = subject.trim().split("\n")[0] ?? "";
  const title = line ? `${name}: ${line}` : name;
  return title.length > TITLE_WIDTH ? `${title.slice(0, TITLE_WIDTH - 1)}…` : title;
}

function location(path: string, input: Record<string, unknown>): ToolCallLocation {
  return typeof input.offset === "number" ? { path, line: input.offset } : { path };
}

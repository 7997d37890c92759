// How a tool call looks in an editor: its title, its ACP kind (which icon it gets) and the
// files it touches, then what it produced. A write or an edit is shown as a diff of the file
// before and after; everything else as the text of its result.
// Kinds and content: https://agentclientprotocol.com/protocol/v1/tool-calls

import { readFileSync } from "node:fs";
import type {
  ToolCall,
  ToolCallContent,
  ToolCallLocation,
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
export function filePathOf(call: ToolUseBlock, cwd: string): string | null {
  const input = call.input as Record<string, unknown>;
  if (typeof input.file_path !== "string") return null;
  return resolveToolPath(cwd, input.file_path);
}

/** A file's text as it is now; null when there is none (a write makes a new file). */
export function currentText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/**
 * What a finished call shows: the diff of the file it changed (`before` is the file's text when
 * it was announced), or its result's text: a command's output, a file's lines, an error.
 */
export function resultContent(
  call: ToolUseBlock,
  result: ToolResultBlock,
  change: { path: string; before: string | null } | null,
): ToolCallContent[] {
  const changed = !result.is_error && change !== null;
  const after = changed ? currentText(change.path) : null;
  if (changed && after !== null && (call.name === "write" || call.name === "edit")) {
    return [{ type: "diff", path: change.path, oldText: change.before, newText: after }];
  }
  const text = resultText(result.content);
  return text ? [{ type: "content", content: { type: "text", text } }] : [];
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

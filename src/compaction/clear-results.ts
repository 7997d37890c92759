// The first layer of compaction (the course's micro-compaction): the content of old tool
// results is replaced by a one-line stub saying what ran, how it ended, how big the output was
// and where it is saved, so the model can read it again. Results the model has not seen yet
// (those in the last message) are never cleared.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ClearedResult } from "../core/events.js";
import {
  type Message,
  resultImages,
  resultText,
  type ToolResultBlock,
  type ToolResultContent,
  type ToolUseBlock,
  type UserMessage,
} from "../core/messages.js";
import { plural } from "../core/wording.js";
import { extensionOf } from "../images/image-kind.js";
import { IMAGE_TOKENS } from "../images/image-limits.js";

/** Every stub starts with this, so a result that is already a stub is not cleared again. */
export const STUB_PREFIX = "[agentloop cleared this result to save context";

export interface ClearChoice {
  /** Tokens of the newest results that stay whole (the last message's always do). */
  keepTokens: number;
  /** Estimated tokens of a piece of text. */
  tokensOf: (text: string) => number;
  /** Where the content of each cleared result is saved; null makes stubs without saving. */
  directory: string | null;
}

/**
 * The history with old results replaced by stubs, newest kept whole within `keepTokens`.
 * Returns the same array when there was nothing to clear.
 */
export function clearOldResults(
  messages: Message[],
  choice: ClearChoice,
): { messages: Message[]; cleared: ClearedResult[] } {
  const calls = new Map<string, ToolUseBlock>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) if (block.type === "tool_use") calls.set(block.id, block);
  }
  let kept = 0;
  // Once one result is too old to keep, every older one is too.
  let full = false;
  const cleared: ClearedResult[] = [];
  const result = [...messages];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as Message;
    if (message.role !== "user" || typeof message.content === "string") continue;
    // Results the model has not answered yet (the last turn's, or a turn cut short before a
    // new prompt) have not been read: they stay whole.
    const unseen = messages[index + 1]?.role !== "assistant";
    let changed = false;
    const content = message.content.map((block) => {
      if (block.type !== "tool_result" || isStub(block.content)) return block;
      const tokens =
        choice.tokensOf(resultText(block.content)) +
        resultImages(block.content).length * IMAGE_TOKENS;
      if (unseen || (!full && kept + tokens <= choice.keepTokens)) {
        kept += tokens;
        return block;
      }
      full = true;
      const stub = stubFor(block, calls.get(block.tool_use_id), choice.directory);
      if (stub === null) return block;
      cleared.push({ tool_use_id: block.tool_use_id, stub });
      changed = true;
      return { ...block, content: stub };
    });
    if (changed) result[index] = { role: "user", content } satisfies UserMessage;
  }
  return cleared.length === 0 ? { messages, cleared } : { messages: result, cleared };
}

/** Applies recorded stubs to a history (replaying a session file). */
export function applyStubs(messages: Message[], cleared: ClearedResult[]): Message[] {
  const stubs = new Map(cleared.map((entry) => [entry.tool_use_id, entry.stub]));
  return messages.map((message) => {
    if (message.role !== "user" || typeof message.content === "string") return message;
    if (!message.content.some((b) => b.type === "tool_result" && stubs.has(b.tool_use_id))) {
      return message;
    }
    const content = message.content.map((block) => {
      const stub = block.type === "tool_result" ? stubs.get(block.tool_use_id) : undefined;
      return stub === undefined ? block : { ...block, content: stub };
    });
    return { role: "user", content };
  });
}

/**
 * One line for a cleared result. The content is saved first (unless `directory` is null, for
 * a throwaway copy); a result that cannot be saved is not cleared, so nothing is ever lost.
 */
function stubFor(
  result: ToolResultBlock,
  call: ToolUseBlock | undefined,
  directory: string | null,
): string | null {
  let where = "not saved";
  if (directory !== null) {
    const path = saveResult(directory, result);
    if (path === null) return null;
    where = `saved in full to ${path}`;
  }
  const text = resultText(result.content);
  const lines = text.split("\n").length;
  const images = resultImages(result.content).length;
  const pictures = images === 0 ? "" : ` and ${plural(images, "image")}`;
  const size = `${plural(text.length, "character")}, ${plural(lines, "line")}${pictures}`;
  return `${STUB_PREFIX}: ${describeCall(call)} ${endingOf(result)}; ${size}; ${where}.]`;
}

/**
 * Writes the text to a new file named after the call (never over an earlier one), and each
 * image beside it as a file of its own type. Returns the paths, the text's first.
 */
function saveResult(directory: string, result: ToolResultBlock): string | null {
  const name = result.tool_use_id.replace(/[^\w.-]/g, "_");
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const text = saveNew(directory, name, "txt", resultText(result.content));
    const images = resultImages(result.content).map((image, index) =>
      saveNew(
        directory,
        `${name}-image-${index + 1}`,
        extensionOf(image.mediaType),
        Buffer.from(image.data, "base64"),
      ),
    );
    return [text, ...images].join(", ");
  } catch {
    return null;
  }
}

function saveNew(
  directory: string,
  name: string,
  extension: string,
  data: string | Buffer,
): string {
  for (let copy = 1; ; copy += 1) {
    const path = join(
      directory,
      copy === 1 ? `${name}.${extension}` : `${name}-${copy}.${extension}`,
    );
    try {
      writeFileSync(path, data, { mode: 0o600, flag: "wx" });
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

function isStub(content: ToolResultContent): boolean {
  return typeof content === "string" && content.startsWith(STUB_PREFIX);
}

function describeCall(call: ToolUseBlock | undefined): string {
  if (!call) return "a tool call";
  const input = call.input as { command?: unknown } | null;
  const shown =
    typeof input?.command === "string" ? input.command : JSON.stringify(call.input ?? {});
  const oneLine = shown.replace(/\s*\n\s*/g, " ");
  return `${call.name} \`${oneLine.length > 120 ? `${oneLine.slice(0, 119)}…` : oneLine}\``;
}

/** How the call ended, from the status line bash writes, else from is_error. */
function endingOf(result: ToolResultBlock): string {
  const status = resultText(result.content).match(
    /^\[(exit code -?\d+|killed by signal \w+|timed out after [\d.]+ s|interrupted by the user)/m,
  );
  if (status) return `ended with ${status[1]}`;
  return result.is_error ? "failed" : "succeeded";
}

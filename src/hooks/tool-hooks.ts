// PreToolUse and PostToolUse: the toolbox's seam around each call (tools/toolbox.ts). Before
// the permission check a hook may refuse the call (its reason is the error result the model
// reads), answer the permission question, or give the input to run with instead; after the
// call it sees the result, and what it says back is added to the result the model reads.

import { resultText, type ToolUseBlock, withTextAdded } from "../core/messages.js";
import { resolveToolPath } from "../core/tool-path.js";
import type { ToolCallHooks } from "../tools/toolbox.js";
import type { HookRunner } from "./runner.js";

export function createToolCallHooks(runner: HookRunner, workspace: string): ToolCallHooks {
  const fields = (call: ToolUseBlock) => ({
    tool_name: call.name,
    tool_input: withAbsolutePath(call.input, workspace),
    tool_use_id: call.id,
  });
  const options = (call: ToolUseBlock, signal: AbortSignal) => ({
    match: call.name,
    toolUseId: call.id,
    signal,
  });
  return {
    async beforeCall(call, signal) {
      const fired = await runner.fire("PreToolUse", fields(call), options(call, signal));
      if (fired.block !== null) return { block: `Blocked by a PreToolUse hook: ${fired.block}` };
      return {
        ...(fired.updatedInput ? { input: fired.updatedInput } : {}),
        ...(fired.permission ? { permission: fired.permission } : {}),
      };
    },
    async afterCall(call, result, signal) {
      // The text of the result: a hook gets no image data, which may run to megabytes.
      const response = { content: resultText(result.content), is_error: result.is_error === true };
      const fired = await runner.fire(
        "PostToolUse",
        { ...fields(call), tool_response: response },
        options(call, signal),
      );
      const notes = [
        ...(fired.block === null ? [] : [`A PostToolUse hook says: ${fired.block}`]),
        ...fired.context,
      ];
      if (notes.length === 0) return result;
      return { ...result, content: withTextAdded(result.content, `\n\n${notes.join("\n")}`) };
    },
  };
}

/** Hooks get the file a file tool works on as an absolute path, as Claude Code gives it. */
function withAbsolutePath(input: unknown, workspace: string): unknown {
  const record = input as Record<string, unknown>;
  if (typeof record.file_path !== "string") return input;
  return { ...record, file_path: resolveToolPath(workspace, record.file_path) };
}

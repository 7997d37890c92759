// The Tool seam's types: a tool is a name, a description, a JSON schema for its input and a
// function. They live below every part so that a part (src/core/part.ts) can offer tools;
// src/tools/ holds the tools themselves and the toolbox that runs them.

import type { ImageBlock, ToolResultBlock, ToolUseBlock } from "./messages.js";
import type { JsonSchemaObject } from "./tool-definition.js";

export interface FileAccess {
  path: string;
  change: boolean;
}

export interface ToolContext {
  /** Aborted when the user interrupts the turn: stop work, clean up, return what you have. */
  signal: AbortSignal;
  /** The id of the call being run, for work it reports on under that call (a subagent's). */
  toolUseId?: string;
  /**
   * For a tool with `files`: where each path (as `files` gave it) led when the permission check
   * judged it, every link followed. The tool works on these, never on the path again, so a
   * link swapped in after the check cannot move the call outside what was approved. Absent
   * when nothing checked the call (a library's toolbox without a check).
   */
  realPaths?: Readonly<Record<string, string>>;
}

export interface ToolOutput {
  content: string;
  /** Pictures the model is shown after the text (the `read` of a PNG, an MCP screenshot). */
  images?: ImageBlock[];
  isError: boolean;
}

export interface Tool<Input = Record<string, unknown>> {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** Runs one call. Failures the model should see are returned with `isError`, not thrown. */
  run(input: Input, context: ToolContext): Promise<ToolOutput>;
  /** True when this call cannot change anything, so it may run at the same time as others. */
  isReadOnly?(input: Input): boolean;
  /**
   * True when a call only starts other calls, each checked on its own (the agent tool's child
   * loop): it needs no approval of its own, though deny and ask rules naming it still hold.
   */
  delegates?: boolean;
  /** The files this call reads or changes, as the model wrote them, for the permission check. */
  files?(input: Input): FileAccess[];
  /** What a person asked to approve this call should see first (the diff of an edit). */
  preview?(input: Input): Promise<string>;
  /** Ends whatever the tool left running (background processes) when the session ends. */
  dispose?(): Promise<void>;
}

/**
 * Whether a PreToolUse hook asked to skip the permission question ("allow") or to raise one
 * ("ask"); neither overrides a deny.
 */
export interface PermissionHint {
  decision: "allow" | "ask";
  reason?: string;
}

export type BeforeCall =
  | { block: string }
  | { input?: Record<string, unknown>; permission?: PermissionHint };

/** Scripts around each call (the user's hooks, src/hooks/): before its permission check, after it ran. */
export interface ToolCallHooks {
  /**
   * A block refuses the call with its reason; otherwise the input may change. `tool` is the tool
   * that will run it, for hooks that treat calls by what they do (a read-only call needs no
   * checkpoint to wait for).
   */
  beforeCall(call: ToolUseBlock, signal: AbortSignal, tool?: Tool): Promise<BeforeCall>;
  /** The result the model reads, with what the hooks add to it. */
  afterCall(
    call: ToolUseBlock,
    result: ToolResultBlock,
    signal: AbortSignal,
  ): Promise<ToolResultBlock>;
}

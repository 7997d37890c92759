// The toolbox holds the tools the model may call. It turns every tool call into exactly one
// tool_result: unknown tools, malformed input, denied permission and tool failures all become
// error results the model can read; nothing here throws at the loop.

import type { ToolResultBlock, ToolResultContent, ToolUseBlock } from "../core/messages.js";
import type { PermissionHint, Tool, ToolCallHooks, ToolOutput } from "../core/tool.js";
import type { ToolDefinition } from "../core/tool-definition.js";

export type { BeforeCall, PermissionHint, ToolCallHooks } from "../core/tool.js";

/**
 * Decides whether a call may run. A denial carries the sentence the model will read; an
 * approval of a call that names files carries where each led when judged (the tool's
 * `ToolContext.realPaths`). `hint` is what the PreToolUse hooks answered: "allow" may skip a
 * question, "ask" may raise one; neither overrides a deny.
 */
export type PermissionCheck = (
  call: ToolUseBlock,
  tool: Tool,
  hint?: PermissionHint,
) => Promise<
  | { allowed: true; realPaths?: Readonly<Record<string, string>> }
  | { allowed: false; reason: string }
>;

export interface Toolbox {
  definitions: ToolDefinition[];
  run(call: ToolUseBlock, signal: AbortSignal): Promise<ToolResultBlock>;
  /** Groups calls into batches that may run at the same time, keeping their order. */
  batches(calls: ToolUseBlock[]): ToolUseBlock[][];
  dispose(): Promise<void>;
}

const allowEverything: PermissionCheck = async () => ({ allowed: true });

/**
 * `tools` is a list, or a function giving the current list when the tools can change between
 * turns (an MCP server announced new ones): it must return the same array until they do.
 */
export function createToolbox(
  tools: readonly Tool[] | (() => readonly Tool[]),
  checkPermission = allowEverything,
  hooks?: ToolCallHooks,
): Toolbox {
  const current = typeof tools === "function" ? tools : () => tools;
  let known: readonly Tool[] | null = null;
  let byName = new Map<string, Tool>();
  let definitions: ToolDefinition[] = [];
  const refresh = () => {
    const list = current();
    if (list === known) return;
    known = list;
    byName = new Map(list.map((tool) => [tool.name, tool]));
    definitions = list.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    }));
  };

  function isReadOnly(call: ToolUseBlock): boolean {
    const tool = byName.get(call.name);
    return tool?.isReadOnly !== undefined && validate(call, tool) === null
      ? tool.isReadOnly(call.input as Record<string, unknown>)
      : false;
  }

  return {
    get definitions() {
      refresh();
      return definitions;
    },

    async run(sent, signal) {
      refresh();
      const tool = byName.get(sent.name);
      if (!tool) {
        const known = [...byName.keys()].join(", ");
        return errorResult(sent, `Unknown tool "${sent.name}". Available tools: ${known}.`);
      }
      const call = withArraysUnquoted(sent, tool);
      const problem = validate(call, tool);
      if (problem) return errorResult(call, `Invalid input for ${call.name}: ${problem}`);
      const before = hooks ? await hooks.beforeCall(call, signal, tool) : {};
      if ("block" in before) return errorResult(call, before.block);
      // A hook's new input is checked like the model's: its schema, then its permission.
      const judged = before.input ? { ...call, input: before.input } : call;
      const changed = before.input ? validate(judged, tool) : null;
      if (changed) {
        return errorResult(call, `A PreToolUse hook changed the input of ${call.name}: ${changed}`);
      }
      const permission = await checkPermission(judged, tool, before.permission);
      if (!permission.allowed) return errorResult(call, permission.reason);
      if (signal.aborted) return interruptedResult(call);
      const result = await runTool(judged, tool, signal, permission.realPaths);
      return hooks ? hooks.afterCall(judged, result, signal) : result;
    },

    batches(calls) {
      refresh();
      const batches: ToolUseBlock[][] = [];
      for (const call of calls) {
        const previous = batches.at(-1);
        const joinable = previous !== undefined && isReadOnly(call) && previous.every(isReadOnly);
        if (joinable) previous.push(call);
        else batches.push([call]);
      }
      return batches;
    },

    async dispose() {
      await Promise.all(current().map((tool) => tool.dispose?.()));
    },
  };
}

/** The text alone, or the text and then the images when the tool returned any. */
function resultContent(output: ToolOutput): ToolResultContent {
  if (!output.images?.length) return output.content;
  return [{ type: "text", text: output.content }, ...output.images];
}

async function runTool(
  call: ToolUseBlock,
  tool: Tool,
  signal: AbortSignal,
  realPaths: Readonly<Record<string, string>> | undefined,
): Promise<ToolResultBlock> {
  try {
    const output = await tool.run(call.input as Record<string, unknown>, {
      signal,
      toolUseId: call.id,
      ...(realPaths ? { realPaths } : {}),
    });
    return {
      type: "tool_result",
      tool_use_id: call.id,
      content: resultContent(output),
      is_error: output.isError,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return errorResult(call, `The ${call.name} tool failed: ${message}`);
  }
}

/** Checks the input against the tool's schema: an object, required fields, simple types. */
function validate(call: ToolUseBlock, tool: Tool): string | null {
  const input = call.input;
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return `expected a JSON object, got ${describe(input)}.`;
  }
  const record = input as Record<string, unknown>;
  for (const field of tool.inputSchema.required ?? []) {
    if (record[field] === undefined) return `the required field "${field}" is missing.`;
  }
  for (const [field, value] of Object.entries(record)) {
    const expected = tool.inputSchema.properties[field]?.type;
    if (expected && value !== undefined && !hasType(value, expected)) {
      return `"${field}" must be a ${expected}, got ${describe(value)}.`;
    }
  }
  return null;
}

/**
 * Smaller models often send an array as its JSON text: where the schema asks for an array and
 * the string is one, the tool gets the array. The recorded call keeps what the model sent.
 */
function withArraysUnquoted(call: ToolUseBlock, tool: Tool): ToolUseBlock {
  const input = call.input;
  if (typeof input !== "object" || input === null || Array.isArray(input)) return call;
  const record = input as Record<string, unknown>;
  let repaired: Record<string, unknown> | null = null;
  for (const [field, value] of Object.entries(record)) {
    if (tool.inputSchema.properties[field]?.type !== "array" || typeof value !== "string") continue;
    const parsed = parsedOrNull(value);
    if (Array.isArray(parsed)) repaired = { ...(repaired ?? record), [field]: parsed };
  }
  return repaired ? { ...call, input: repaired } : call;
}

function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 80))}`;
  return `a ${typeof value}`;
}

export function errorResult(call: ToolUseBlock, content: string): ToolResultBlock {
  return { type: "tool_result", tool_use_id: call.id, content, is_error: true };
}

export function interruptedResult(call: ToolUseBlock): ToolResultBlock {
  return errorResult(call, "Interrupted by the user before this call finished.");
}

export function truncatedCallResult(call: ToolUseBlock): ToolResultBlock {
  return errorResult(
    call,
    "This tool call was cut off by the output token limit, so it was not run. Issue smaller calls (for example, write a long file in several steps).",
  );
}

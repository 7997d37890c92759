// One tool of an MCP server as an agentloop Tool: a name and a schema that both the Anthropic
// and the OpenAI APIs accept, the server's description, read-only when the server says so,
// and a run that calls the server and turns every way a call can end into one result.

import { createHash } from "node:crypto";
import type { CallToolResult, Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import { isRecord } from "../core/settings.js";
import { failure, type JsonSchemaObject, type Tool } from "../tools/tool.js";
import { DEFAULT_MAX_RESULT_CHARS, describeResult } from "./tool-result.js";

/** How one call to a server ended. */
export type CallOutcome =
  | { kind: "result"; result: CallToolResult }
  | { kind: "timed-out" }
  | { kind: "interrupted" }
  /** The server died or the connection broke during the call. */
  | { kind: "server-stopped"; reason: string }
  /** The server was down and could not be started again. */
  | { kind: "unavailable"; reason: string }
  /** The server answered with a protocol error (unknown tool, invalid arguments, ...). */
  | { kind: "failed"; message: string };

export interface McpToolSource {
  server: string;
  definition: McpToolDefinition;
  /** The name the model sees, from mcpToolName. */
  name: string;
  /** How the server is reached: a stdio server is started again after it died, HTTP reconnected. */
  transport: "stdio" | "http";
  call(args: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome>;
  callTimeoutMs: number;
  outputDirectory: string;
}

/** Both APIs take [a-zA-Z0-9_-]; OpenAI takes at most 64 characters. */
const MAX_NAME_LENGTH = 64;
const HASH_LENGTH = 8;
const MAX_DESCRIPTION_CHARS = 1000;
const COMBINATORS = ["anyOf", "oneOf", "allOf"] as const;

/**
 * `mcp__<server>__<tool>` with every other character made `_`. A name that is too long, or
 * taken (two tools that differ only in characters replaced), is cut and ends in a hash of the
 * server and tool names, which keeps it the same from one session to the next.
 */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const name = `mcp__${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (name.length <= MAX_NAME_LENGTH && !taken.has(name)) return name;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex");
  for (let extra = 0; ; extra++) {
    const suffix = hash.slice(extra, extra + HASH_LENGTH);
    const candidate = `${name.slice(0, MAX_NAME_LENGTH - HASH_LENGTH - 1)}_${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The schema as both APIs accept it: an object at the top with `properties`, no `$schema`,
 * and no `anyOf`/`oneOf`/`allOf` at the top (the Anthropic API refuses the whole request
 * over one such tool), their branches' properties merged in instead. The rest is kept.
 */
export function toInputSchema(schema: McpToolDefinition["inputSchema"]): JsonSchemaObject {
  const { $schema: _, ...rest } = schema as Record<string, unknown>;
  const properties: Record<string, unknown> = isRecord(rest.properties)
    ? { ...rest.properties }
    : {};
  const required = new Set(stringsIn(rest.required));
  for (const combinator of COMBINATORS) {
    const branches = rest[combinator];
    delete rest[combinator];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches.filter(isRecord)) {
      for (const [key, value] of Object.entries(
        isRecord(branch.properties) ? branch.properties : {},
      )) {
        properties[key] ??= value;
      }
      // Every branch of allOf holds, so its required fields are required; not so for the others.
      if (combinator === "allOf")
        for (const field of stringsIn(branch.required)) required.add(field);
    }
  }
  const result: Record<string, unknown> = { ...rest, type: "object", properties };
  if (required.size > 0) result.required = [...required];
  else delete result.required;
  return result as unknown as JsonSchemaObject;
}

export function describeTool(server: string, definition: McpToolDefinition): string {
  const text = (definition.description ?? definition.title ?? "").trim();
  if (text === "") return `The "${definition.name}" tool of the MCP server "${server}".`;
  if (text.length <= MAX_DESCRIPTION_CHARS) return text;
  return `${text.slice(0, MAX_DESCRIPTION_CHARS).trimEnd()} [...]`;
}

export function createMcpTool(source: McpToolSource): Tool {
  const { server, definition, name } = source;
  const readOnly = definition.annotations?.readOnlyHint === true;
  return {
    name,
    description: describeTool(server, definition),
    inputSchema: toInputSchema(definition.inputSchema),
    ...(readOnly ? { isReadOnly: () => true } : {}),
    async run(input, context) {
      const outcome = await source.call(input, context.signal);
      switch (outcome.kind) {
        case "result":
          return describeResult(outcome.result, {
            maxChars: DEFAULT_MAX_RESULT_CHARS,
            outputDirectory: source.outputDirectory,
            toolName: name,
          });
        case "timed-out":
          return failure(
            `The MCP tool ${name} did not answer within ${seconds(source.callTimeoutMs)} s; it was cancelled.`,
          );
        case "interrupted":
          return failure(
            `Interrupted by the user; the MCP server "${server}" was asked to cancel the call.`,
          );
        case "server-stopped": {
          const next =
            source.transport === "stdio"
              ? "It will be started again for the next call to one of its tools."
              : "The next call to one of its tools will connect to it again.";
          return failure(
            `The MCP server "${server}" stopped during the call (${outcome.reason}). ${next}`,
          );
        }
        case "unavailable":
          return failure(`The MCP server "${server}" is not available: ${outcome.reason}.`);
        case "failed":
          return failure(`The MCP tool ${name} failed: ${outcome.message}`);
      }
    },
  };
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function stringsIn(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === "string") : [];
}

// The session's MCP servers: all started at once, each within its own time limit, their tools
// offered to the model as agentloop Tools under names unique across servers. A server that
// does not start is one notice, and the session goes on without it.

import type { Tool } from "../tools/tool.js";
import type { McpServerEntry } from "./config.js";
import { createMcpTool, mcpToolName } from "./mcp-tool.js";
import { McpServerConnection } from "./server-connection.js";

export interface McpOptions {
  /** How long a server gets to start and list its tools; default 30 s. */
  startTimeoutMs?: number;
  /** How long one tool call may take before it is cancelled; default 120 s. */
  callTimeoutMs?: number;
  /** Where outputs too long for the model are saved. */
  outputDirectory: string;
  /** One sentence for the user: a server that did not start, or stopped. */
  onNotice?: (sentence: string) => void;
}

export interface McpServerStatus {
  name: string;
  state: "connected" | "failed";
  error?: string;
  /** The tools it offers, as the model sees them, and the size of each definition sent. */
  tools: { name: string; definitionBytes: number }[];
}

export interface McpConnections {
  /** The tools of every running server: the same array until one of them changes. */
  tools(): readonly Tool[];
  status(): McpServerStatus[];
  /** Stops every server, with whatever it started. */
  close(): Promise<void>;
}

export const DEFAULT_START_TIMEOUT_MS = 30_000;
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;

export async function connectMcpServers(
  servers: McpServerEntry[],
  options: McpOptions,
): Promise<McpConnections> {
  const notice = options.onNotice ?? (() => {});
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  // A tool keeps its name for the whole session, even if its server lists it again later.
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const nameOf = (server: string, tool: string) => {
    const key = `${server}\0${tool}`;
    let name = names.get(key);
    if (name === undefined) {
      name = mcpToolName(server, tool, taken);
      names.set(key, name);
      taken.add(name);
    }
    return name;
  };

  let tools: readonly Tool[] = [];
  let started: McpServerConnection[] = [];
  let ownerOf = new Map<Tool, McpServerConnection>();
  const rebuild = () => {
    ownerOf = new Map();
    tools = started.flatMap((connection) =>
      connection.tools.map((definition) => {
        const tool = createMcpTool({
          server: connection.name,
          definition,
          name: nameOf(connection.name, definition.name),
          transport: connection.transport,
          call: (args, signal) => connection.callTool(definition.name, args, signal),
          callTimeoutMs,
          outputDirectory: options.outputDirectory,
        });
        ownerOf.set(tool, connection);
        return tool;
      }),
    );
  };

  const connections = servers.map(
    (entry) =>
      new McpServerConnection(entry, {
        startTimeoutMs: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
        callTimeoutMs,
        onToolsChanged: rebuild,
        onNotice: notice,
      }),
  );
  const failures = await Promise.all(connections.map((connection) => connection.start()));
  failures.forEach((failure, index) => {
    if (failure) notice(`MCP server "${servers[index]?.name}" did not start: ${failure}`);
  });
  started = connections.filter((_, index) => failures[index] === null);
  rebuild();

  let closed = false;
  return {
    tools: () => tools,
    status: () =>
      connections.map((connection) => {
        const offered = tools.filter((tool) => ownerOf.get(tool) === connection);
        return {
          name: connection.name,
          state: connection.error === null ? "connected" : "failed",
          ...(connection.error === null ? {} : { error: connection.error }),
          tools: offered.map((tool) => ({
            name: tool.name,
            definitionBytes: definitionBytes(tool),
          })),
        };
      }),
    async close() {
      if (closed) return;
      closed = true;
      started = [];
      tools = [];
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}

/** The bytes this tool adds to every request: its definition as the provider sends it. */
function definitionBytes(tool: Tool): number {
  const definition = {
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  };
  return Buffer.byteLength(JSON.stringify(definition));
}

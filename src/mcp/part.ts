// The MCP part: the tools of the session's MCP servers, offered to the session and to its
// subagents alike, as the servers announce them; the servers stop when the session closes.

import type { SessionPart } from "../core/part.js";
import type { McpConnections } from "./connections.js";

/** `removeOutputs` deletes the directory where outputs too long for the model were saved. */
export function createMcpPart(connections: McpConnections, removeOutputs: () => void): SessionPart {
  return {
    name: "mcp",
    tools: () => connections.tools(),
    async close() {
      await connections.close();
      removeOutputs();
      return [];
    },
  };
}

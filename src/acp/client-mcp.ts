// The MCP servers an editor passes with `session/new`, written as a file in .mcp.json's format
// and given to the session as --mcp-config files are: they join the project's and the user's
// servers, and win on the same name. ACP's SSE transport has no place in agentloop's format and
// was not offered in `initialize`, so such a server is skipped with a log line. The file is
// read once, as the session starts, and removed then.
// MCP servers in ACP: https://agentclientprotocol.com/protocol/v1/session-setup#mcp-servers

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpServerConfig } from "../mcp/config.js";

/** The files to add to the session's MCP config: none when the editor passes no server. */
export function clientMcpFiles(
  servers: readonly McpServer[],
  log: (line: string) => void,
): string[] {
  const mcpServers: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    if ("type" in server && server.type === "sse") {
      log(
        `the editor's MCP server "${server.name}" speaks SSE, which agentloop does not: skipped.`,
      );
      continue;
    }
    mcpServers[server.name] =
      "type" in server && server.type === "http"
        ? { type: "http", url: server.url, headers: pairs(server.headers) }
        : { type: "stdio", command: server.command, args: server.args, env: pairs(server.env) };
  }
  if (Object.keys(mcpServers).length === 0) return [];
  const file = join(mkdtempSync(join(tmpdir(), "agentloop-acp-mcp-")), "mcp.json");
  writeFileSync(file, `${JSON.stringify({ mcpServers }, null, 2)}\n`);
  return [file];
}

function pairs(list: readonly { name: string; value: string }[]): Record<string, string> {
  return Object.fromEntries(list.map(({ name, value }) => [name, value]));
}

/** Removes the files once the session has read them (it reads them as it starts). */
export function removeClientMcpFiles(files: readonly string[]): void {
  for (const file of files) rmSync(dirname(file), { recursive: true, force: true });
}

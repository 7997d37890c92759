// `agentloop mcp list`: the MCP servers this directory has, where each is defined, whether it
// starts, its tools, and how many bytes their definitions add to every request.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ComponentSources } from "../core/component-sources.js";
import { EXIT } from "../core/exit-codes.js";
import { count } from "../core/wording.js";
import { approvedServers } from "./approval.js";
import { loadMcpServers } from "./config.js";
import { connectMcpServers } from "./connections.js";

export interface McpListOptions {
  cwd: string;
  mcpConfigFiles: string[];
  /** The real environment: where the user's settings and approvals are. */
  env: NodeJS.ProcessEnv;
  /** Servers beside the settings' (enabled plugins'), as the chapters give them. */
  sources: ComponentSources;
  stdout: (line: string) => void;
}

export async function runMcpList(options: McpListOptions): Promise<number> {
  const { stdout } = options;
  const servers = await loadMcpServers({
    workspace: options.cwd,
    env: options.env,
    configFiles: options.mcpConfigFiles,
    sources: options.sources,
  });
  if (servers.length === 0) {
    stdout(
      'No MCP servers: define them in .mcp.json, in your settings\' "mcpServers", or with --mcp-config FILE.',
    );
    return EXIT.done;
  }
  const left: string[] = [];
  // Listing never asks: a project server not approved yet is shown as such, not started.
  const approved = await approvedServers(servers, {
    workspace: options.cwd,
    env: options.env,
    onNotice: (sentence) => left.push(sentence),
  });
  const outputs = mkdtempSync(join(tmpdir(), "agentloop-mcp-list-"));
  const connections = await connectMcpServers(approved, {
    outputDirectory: outputs,
    onNotice: () => {},
  });
  try {
    const statuses = new Map(connections.status().map((status) => [status.name, status]));
    for (const server of servers) {
      const status = statuses.get(server.name);
      const where = `${server.source}, ${server.file}`;
      if (!status) {
        stdout(`${server.name}  not started: needs your approval  (${where})`);
        continue;
      }
      if (status.state === "failed") {
        stdout(`${server.name}  failed: ${status.error ?? "unknown error"}  (${where})`);
        continue;
      }
      const bytes = status.tools.reduce((sum, tool) => sum + tool.definitionBytes, 0);
      stdout(
        `${server.name}  connected  ${status.tools.length} tools, ${count(bytes)} bytes per request  (${where})`,
      );
      for (const tool of status.tools) {
        stdout(`  ${tool.name}  ${count(tool.definitionBytes)} B`);
      }
    }
    for (const sentence of left) stdout(sentence);
  } finally {
    await connections.close();
    rmSync(outputs, { recursive: true, force: true });
  }
  return EXIT.done;
}

// A session's MCP servers: read from .mcp.json, the user's settings and --mcp-config, the
// repository's own servers approved first (asked at the terminal in ask mode), then started.

import type { ComponentSources } from "../core/component-sources.js";
import { ConfigError } from "../core/errors.js";
import type { ProjectSettings } from "../core/project-settings.js";
import type { PermissionMode } from "../permissions/policy.js";
import { approvedServers, type McpApprovalContext } from "./approval.js";
import { loadMcpServers } from "./config.js";
import type { McpConnections } from "./connections.js";

export interface SessionMcp {
  workspace: string;
  configFiles: string[];
  /** The real environment: where the user's settings and approvals are. */
  env: NodeJS.ProcessEnv;
  /** The settings files as start-up read them; absent, they are read now. */
  read?: ProjectSettings;
  /** Servers beside the settings' (enabled plugins'), as the session's chapters gave them. */
  sources?: ComponentSources;
  mode: PermissionMode;
  /** Asks the person at the terminal (src/terminal/mcp-ask.ts); absent when there is none. */
  ask: McpApprovalContext["ask"];
  /** Where outputs too long for the model are saved. */
  outputDirectory: string;
  onNotice: (sentence: string) => void;
}

export async function startSessionMcp(setup: SessionMcp): Promise<McpConnections> {
  const servers = await loadMcpServers({
    workspace: setup.workspace,
    env: setup.env,
    configFiles: setup.configFiles,
    read: setup.read,
    sources: setup.sources,
  });
  const approved = await approvedServers(servers, {
    workspace: setup.workspace,
    env: setup.env,
    ask: setup.mode === "ask" ? setup.ask : undefined,
    onNotice: setup.onNotice,
  });
  if (approved.length === 0) return noServers;
  // A stdio server without a "cwd" of its own works in the workspace, as commands do.
  const inWorkspace = approved.map((server) =>
    server.config.type === "http" || server.config.cwd !== undefined
      ? server
      : { ...server, config: { ...server.config, cwd: setup.workspace } },
  );
  // The SDK loads only for a session that has servers.
  const { connectMcpServers } = await import("./connections.js");
  return connectMcpServers(inWorkspace, {
    outputDirectory: setup.outputDirectory,
    onNotice: setup.onNotice,
    // In milliseconds, under the names other agents read them from.
    startTimeoutMs: milliseconds(setup.env, "MCP_TIMEOUT"),
    callTimeoutMs: milliseconds(setup.env, "MCP_TOOL_TIMEOUT"),
  });
}

function milliseconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(`${name} must be a whole number of milliseconds, got "${text}".`);
  }
  return value;
}

const noTools: readonly never[] = [];
const noServers: McpConnections = {
  tools: () => noTools,
  status: () => [],
  close: async () => {},
};

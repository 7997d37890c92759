// A server the repository defines (.mcp.json) is code from that repository: it starts only
// once the user has said so, at a terminal or in their own settings. Servers from the user's
// settings or from --mcp-config are the user's own and need nothing.

import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  type ApprovalContext,
  answersFor,
  approveDefinition,
  noticeSelfApproval,
  projectKey,
  rememberAnswer,
} from "../core/approvals.js";
import { canonicalJson } from "../core/canonical-json.js";
import { ConfigError } from "../core/errors.js";
import { readSettings, userSettingsPath } from "../core/settings.js";
import { stateDirectory } from "../core/state-directory.js";
import type { McpServerConfig, McpServerEntry } from "./config.js";

export interface McpApprovalQuestion {
  name: string;
  /** What would run: the command line, or the URL, on one line. */
  summary: string;
  file: string;
}

export type McpApprovalContext = ApprovalContext<McpApprovalQuestion>;

/** The servers that may start: the user's own, and the project's that the user allowed. */
export async function approvedServers(
  servers: McpServerEntry[],
  context: McpApprovalContext,
): Promise<McpServerEntry[]> {
  const fromProject = servers.filter((server) => server.source === "project");
  if (fromProject.length === 0) return servers;

  const userFile = userSettingsPath(context.env);
  const allowed = userAllowance(await readSettings(userFile), userFile);
  await noticeSelfApproval(
    context,
    ["enableAllProjectMcpServers", "enabledMcpjsonServers"],
    "a project's MCP servers",
    context.onNotice,
  );
  const stateFile = mcpApprovalsPath(context.env);
  const project = await projectKey(context.workspace);
  const remembered = answersFor(await readSettings(stateFile), project);

  const approved = new Set<McpServerEntry>();
  const { ask } = context;
  for (const server of fromProject) {
    if (allowed.all || allowed.names.has(server.name)) {
      approved.add(server);
      continue;
    }
    const definition = definitionHash(server.config);
    const answer = await approveDefinition(definition, remembered[server.name], {
      notRun: `MCP server "${server.name}" from ${server.file} was not started`,
      declined:
        "you declined it (you are asked again if its definition changes); to allow it anyway",
      changed: "its definition changed since you answered",
      needed: "a server the project defines needs your approval",
      allowInSettings: `add "enabledMcpjsonServers": ["${server.name}"] to ${userFile}`,
      onNotice: context.onNotice,
      ask:
        ask &&
        (() => ask({ name: server.name, summary: summarize(server.config), file: server.file })),
      remember: (given) => rememberAnswer(stateFile, project, server.name, given),
    });
    // Ctrl-C: none of the servers still to ask about starts, and nothing is remembered.
    if (answer === null) break;
    if (answer) approved.add(server);
  }
  return servers.filter((server) => server.source !== "project" || approved.has(server));
}

export function parseMcpAnswer(line: string): boolean {
  return ["y", "yes"].includes(line.trim().toLowerCase());
}

export function mcpApprovalsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDirectory(env), "mcp-approvals.json");
}

/** What the question shows: the command line with its env names and cwd, or the URL. */
export function summarize(config: McpServerConfig): string {
  if (config.type === "http") {
    const headers = Object.keys(config.headers ?? {});
    return headers.length > 0 ? `${config.url} (headers ${headers.join(", ")})` : config.url;
  }
  const line = [config.command, ...(config.args ?? [])].map(shellQuote).join(" ");
  const extras = [];
  const envNames = Object.keys(config.env ?? {});
  if (envNames.length > 0) extras.push(`env ${envNames.join(", ")}`);
  if (config.cwd) extras.push(`in ${config.cwd}`);
  return extras.length > 0 ? `${line} (${extras.join("; ")})` : line;
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A changed definition (command, args, env, cwd, url or headers) has another hash. */
export function definitionHash(config: McpServerConfig): string {
  return createHash("sha256").update(canonicalJson(config)).digest("hex");
}

function userAllowance(
  settings: Record<string, unknown>,
  file: string,
): { all: boolean; names: Set<string> } {
  const all = settings.enableAllProjectMcpServers ?? false;
  if (typeof all !== "boolean") {
    throw new ConfigError(`"enableAllProjectMcpServers" in ${file} must be true or false.`);
  }
  const names = settings.enabledMcpjsonServers ?? [];
  if (!Array.isArray(names) || names.some((name) => typeof name !== "string")) {
    throw new ConfigError(`"enabledMcpjsonServers" in ${file} must be a list of server names.`);
  }
  return { all, names: new Set(names) };
}

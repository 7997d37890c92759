// A server the repository defines (.mcp.json) is code from that repository: it starts only
// once the user has said so, at a terminal or in their own settings. Servers from the user's
// settings or from --mcp-config are the user's own and need nothing.

import { createHash } from "node:crypto";
import { mkdir, realpath } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { canonicalJson } from "../core/canonical-json.js";
import { ConfigError } from "../core/errors.js";
import { isRecord, projectSettingsPath, readSettings, userSettingsPath } from "../core/settings.js";
import { stateDirectory } from "../core/state-directory.js";
import { writeFileAtomically } from "../tools/atomic-write.js";
import type { McpServerConfig, McpServerEntry } from "./config.js";

export interface McpApprovalQuestion {
  name: string;
  /** What would run: the command line, or the URL, on one line. */
  summary: string;
  file: string;
}

export interface McpApprovalContext {
  workspace: string;
  /**
   * Locates the user's settings and state. Pass the real environment, not one merged with the
   * project's .env: a repository that could set XDG_CONFIG_HOME could approve itself.
   */
  env: NodeJS.ProcessEnv;
  /**
   * Present only at a terminal in permission mode ask. Null: no answer (Ctrl-C), so the server
   * does not start and the question is asked again next time.
   */
  ask?: (question: McpApprovalQuestion) => Promise<boolean | null>;
  onNotice: (sentence: string) => void;
}

/** The servers that may start: the user's own, and the project's that the user allowed. */
export async function approvedServers(
  servers: McpServerEntry[],
  context: McpApprovalContext,
): Promise<McpServerEntry[]> {
  const fromProject = servers.filter((server) => server.source === "project");
  if (fromProject.length === 0) return servers;

  const userFile = userSettingsPath(context.env);
  const allowed = userAllowance(await readSettings(userFile), userFile);
  await noticeProjectAllowance(context);
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

/** How one definition from the repository is asked about, remembered and told of. */
export interface DefinitionApproval {
  /** What did not happen, as the notice begins: `MCP server "x" from .mcp.json was not started`. */
  notRun: string;
  /** Why, when the user declined it: ends in the words before `allowInSettings`. */
  declined: string;
  /** Why, when it changed since the user answered. */
  changed: string;
  /** Why, when the user was never asked. */
  needed: string;
  /** How to allow it without being asked: `add "..." to FILE`. */
  allowInSettings: string;
  onNotice: (sentence: string) => void;
  /** Present only at a terminal in permission mode ask; null is Ctrl-C. */
  ask?: () => Promise<boolean | null>;
  remember: (answer: Answer) => Promise<void>;
}

/**
 * Whether a definition from the repository (by its hash) may run: yes once approved as it is
 * now; otherwise asked about, when a person can be, and the answer remembered; otherwise not,
 * with a notice saying why and how to allow it. Null: Ctrl-C, nothing remembered.
 */
export async function approveDefinition(
  definition: string,
  earlier: Answer | undefined,
  approval: DefinitionApproval,
): Promise<boolean | null> {
  const current = earlier?.definition === definition ? earlier : undefined;
  if (current?.approved) return true;
  const { notRun, allowInSettings } = approval;
  if (current) {
    approval.onNotice(`${notRun}: ${approval.declined}, ${allowInSettings}.`);
    return false;
  }
  if (!approval.ask) {
    const why = earlier ? approval.changed : approval.needed;
    approval.onNotice(
      `${notRun}: ${why}; run agentloop at a terminal in permission mode ask to be asked, or ${allowInSettings}.`,
    );
    return false;
  }
  const answer = await approval.ask();
  if (answer !== null) await approval.remember({ definition, approved: answer });
  return answer;
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

/** The project's own settings may not allow its servers; say so when it tries. */
async function noticeProjectAllowance(context: McpApprovalContext): Promise<void> {
  const file = projectSettingsPath(context.workspace);
  const settings = await readSettings(file);
  for (const key of ["enableAllProjectMcpServers", "enabledMcpjsonServers"]) {
    if (settings[key] === undefined) continue;
    context.onNotice(
      `"${key}" in ${file} is ignored: only your own settings (${userSettingsPath(context.env)}) can allow a project's MCP servers.`,
    );
  }
}

/** What the user answered about a definition from the repository (a server, the hooks of a file). */
export interface Answer {
  /** The hash of the definition when the user answered. */
  definition: string;
  approved: boolean;
}

/** Answers are remembered per project, under its real path. */
export async function projectKey(workspace: string): Promise<string> {
  return realpath(workspace).catch(() => resolve(workspace));
}

/** The remembered answers for one project; an entry in any other shape counts as none. */
export function answersFor(
  state: Record<string, unknown>,
  project: string,
): Record<string, Answer> {
  const projects = isRecord(state.projects) ? state.projects : {};
  const answers = isRecord(projects[project]) ? projects[project] : {};
  const valid: Record<string, Answer> = {};
  for (const [name, answer] of Object.entries(answers)) {
    if (
      isRecord(answer) &&
      typeof answer.definition === "string" &&
      typeof answer.approved === "boolean"
    ) {
      valid[name] = { definition: answer.definition, approved: answer.approved };
    }
  }
  return valid;
}

/** Re-reads the file before writing, so answers given in another session at once are kept. */
export async function rememberAnswer(
  file: string,
  project: string,
  name: string,
  answer: Answer,
): Promise<void> {
  const state = await readSettings(file);
  const projects = isRecord(state.projects) ? state.projects : {};
  const answers = isRecord(projects[project]) ? projects[project] : {};
  answers[name] = { ...answer, answeredAt: new Date().toISOString() };
  projects[project] = answers;
  const text = `${JSON.stringify({ ...state, version: 1, projects }, null, 2)}\n`;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // All at once, so a crash never leaves half a file; 0600 as it names projects.
  await writeFileAtomically(file, text, { mode: 0o600 });
}

// The language servers a session may start, configured as Claude Code configures a plugin's
// (its `.lsp.json` shape): `"lspServers": {NAME: {command, args, extensionToLanguage,
// initializationOptions, startupTimeout, env, diagnostics}}` in the person's settings, or in a
// project's once the person trusts that file (core/project-settings.ts holds it back until
// then). `severity` and `diagnosticsTimeout` are agentloop's own: how mild a problem may be
// and still be told, and how long an edit waits for the diagnostics of what it wrote.

import { ConfigError } from "../core/errors.js";
import { readAllSettings } from "../core/project-settings.js";
import { isRecord } from "../core/settings.js";

/** LSP's DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint. */
const SEVERITIES = { error: 1, warning: 2, information: 3, hint: 4 } as const;
export type SeverityName = keyof typeof SEVERITIES;

/** How long a server may take to answer `initialize` when its entry does not say. */
const DEFAULT_STARTUP_MS = 10_000;
/** How long an edit waits for its diagnostics when the entry does not say. */
const DEFAULT_WAIT_MS = 3_000;

export interface ServerConfig {
  name: string;
  command: string;
  args: string[];
  /** ".ts" -> "typescript": the files it serves and the language id it is told for each. */
  extensionToLanguage: Record<string, string>;
  initializationOptions?: unknown;
  startupTimeoutMs: number;
  /** How long an edit waits for the diagnostics of what it wrote (agentloop's own key). */
  waitMs: number;
  env: Record<string, string>;
  /** False: the server is not started, and no edit is told its diagnostics. */
  diagnostics: boolean;
  /** The mildest severity told (1 = errors only, the default). */
  severity: number;
  /** The settings file that configured it, for sentences about it. */
  file: string;
}

export async function readLspServers(
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<ServerConfig[]> {
  const byName = new Map<string, ServerConfig>();
  for (const { file, settings } of await readAllSettings({ workspace, env })) {
    const servers = settings.lspServers;
    if (servers === undefined) continue;
    if (!isRecord(servers)) throw new ConfigError(`"lspServers" in ${file} must be an object.`);
    for (const [name, entry] of Object.entries(servers)) {
      byName.set(name, parseServer(name, entry, file));
    }
  }
  return [...byName.values()].filter((server) => server.diagnostics);
}

function parseServer(name: string, entry: unknown, file: string): ServerConfig {
  const wrong = (what: string) =>
    new ConfigError(`The language server "${name}" in ${file} ${what}; fix or remove it.`);
  if (!isRecord(entry)) throw wrong("is not an object");
  const { command, args = [], extensionToLanguage, startupTimeout, env = {} } = entry;
  const { diagnostics = true, severity = "error", diagnosticsTimeout } = entry;
  if (typeof command !== "string" || command === "") throw wrong('has no "command"');
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    throw wrong('has "args" that are not a list of strings');
  }
  if (
    !isRecord(extensionToLanguage) ||
    Object.keys(extensionToLanguage).length === 0 ||
    !Object.values(extensionToLanguage).every((language) => typeof language === "string")
  ) {
    throw wrong('needs "extensionToLanguage", like {".ts": "typescript"}');
  }
  if (startupTimeout !== undefined && !(typeof startupTimeout === "number" && startupTimeout > 0)) {
    throw wrong('has a "startupTimeout" that is not a positive number of milliseconds');
  }
  if (
    diagnosticsTimeout !== undefined &&
    !(typeof diagnosticsTimeout === "number" && diagnosticsTimeout > 0)
  ) {
    throw wrong('has a "diagnosticsTimeout" that is not a positive number of milliseconds');
  }
  if (!isRecord(env) || !Object.values(env).every((value) => typeof value === "string")) {
    throw wrong('has an "env" that is not an object of strings');
  }
  if (typeof diagnostics !== "boolean")
    throw wrong('has a "diagnostics" that is not true or false');
  if (typeof severity !== "string" || !(severity in SEVERITIES)) {
    throw wrong(`has a "severity" that is not one of ${Object.keys(SEVERITIES).join(", ")}`);
  }
  return {
    name,
    command,
    args: args as string[],
    extensionToLanguage: extensionToLanguage as Record<string, string>,
    ...(entry.initializationOptions === undefined
      ? {}
      : { initializationOptions: entry.initializationOptions }),
    startupTimeoutMs: (startupTimeout as number | undefined) ?? DEFAULT_STARTUP_MS,
    waitMs: (diagnosticsTimeout as number | undefined) ?? DEFAULT_WAIT_MS,
    env: env as Record<string, string>,
    diagnostics,
    severity: SEVERITIES[severity as SeverityName],
    file,
  };
}

/** The server that serves `path` (by its extension, as written in `extensionToLanguage`), if any. */
export function serverFor(
  servers: readonly ServerConfig[],
  path: string,
): { server: ServerConfig; language: string } | null {
  for (const server of servers) {
    for (const [extension, language] of Object.entries(server.extensionToLanguage)) {
      if (path.endsWith(extension)) return { server, language };
    }
  }
  return null;
}

// Which MCP servers a session has, in the format people already write for Claude Code: the
// project's .mcp.json, "mcpServers" in the user's settings file, the servers of the session's
// component sources (core/component-sources.ts: enabled plugins', docs/plugins.md), and files
// given with --mcp-config. On the same name a flag beats the project, and the project beats the
// user.

import { dirname, join, resolve } from "node:path";
import type { ComponentSources } from "../core/component-sources.js";
import { ConfigError } from "../core/errors.js";
import { readOwnFile, repositoryPlace } from "../core/own-file.js";
import { type ProjectSettings, settingsOf } from "../core/project-settings.js";
import { isRecord, userSettingsPath } from "../core/settings.js";

export type McpServerConfig =
  | { type?: "stdio"; command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { type: "http"; url: string; headers?: Record<string, string> };

export interface McpServerEntry {
  name: string;
  /** Variables expanded, "cwd" absolute; a stdio server always has `type: "stdio"`. */
  config: McpServerConfig;
  source: "project" | "user" | "flag";
  /** The file that defined it. */
  file: string;
}

export const PROJECT_MCP_FILE = ".mcp.json";

/**
 * The servers from every place that defines them, one per name. `env` expands `${VAR}` and
 * locates the user's settings: pass the real environment, not one merged with the project's
 * .env, or a repository could name its own file as the user's. `configFiles` are the
 * --mcp-config files in the order given (a later one wins on the same name).
 */
export async function loadMcpServers(input: {
  workspace: string;
  env: NodeJS.ProcessEnv;
  configFiles: string[];
  /** The settings files as start-up read them; absent, they are read now. */
  read?: ProjectSettings;
  /** Servers beside the settings' (enabled plugins'), as the session's chapters gave them. */
  sources?: ComponentSources;
}): Promise<McpServerEntry[]> {
  const byName = new Map<string, McpServerEntry>();
  const add = (entries: McpServerEntry[]) => {
    for (const entry of entries) byName.set(entry.name, entry);
  };

  const userFile = userSettingsPath(input.env);
  const userSettings = await settingsOf(userFile, input.read);
  if (userSettings.mcpServers !== undefined) {
    add(serversFrom(userSettings.mcpServers, { file: userFile, source: "user", env: input.env }));
  }

  // A source's servers (an enabled plugin's, named as it names them) are the person's own: they
  // approved them by installing it. Its variables are expanded in their fields.
  for (const source of input.sources?.sources ?? []) {
    for (const { file, servers } of source.mcpServers) {
      const variables = source.variables();
      const env = { ...input.env, ...variables };
      // The server's process gets the variables too, as a plugin's does in Claude Code.
      const withVariables = (server: unknown) =>
        isRecord(server) && (server.env === undefined || isRecord(server.env))
          ? { ...server, env: { ...variables, ...server.env } }
          : server;
      const named = Object.fromEntries(
        Object.entries(servers).map(([name, server]) => [name, withVariables(server)]),
      );
      add(serversFrom(named, { file, source: "user", env }));
    }
  }

  const projectFile = join(resolve(input.workspace), PROJECT_MCP_FILE);
  const project = await readJsonObject(projectFile, {
    required: false,
    places: [repositoryPlace(input.workspace)],
  });
  if (project?.mcpServers !== undefined) {
    add(serversFrom(project.mcpServers, { file: projectFile, source: "project", env: input.env }));
  }

  for (const given of input.configFiles) {
    const file = resolve(given);
    // The person names this file: it may be anywhere, but is still read only if small and regular.
    const flag = await readJsonObject(file, { required: true, places: ["/"] });
    if (flag?.mcpServers === undefined) {
      throw new ConfigError(
        `${file}, given to --mcp-config, has no "mcpServers" object; write {"mcpServers": {"name": {...}}}.`,
      );
    }
    add(serversFrom(flag.mcpServers, { file, source: "flag", env: input.env }));
  }
  return [...byName.values()];
}

async function readJsonObject(
  file: string,
  options: { required: boolean; places: string[] },
): Promise<Record<string, unknown> | undefined> {
  const read = readOwnFile(file, options.places);
  if ("missing" in read && !options.required) return undefined;
  if ("missing" in read) throw new ConfigError(`${file}, given to --mcp-config, does not exist.`);
  if ("skipped" in read)
    throw new ConfigError(`${file} was not read: ${read.skipped}; fix or remove it.`);
  const text = read.text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON${whereInText(text, error)}; fix it.`);
  }
  if (!isRecord(parsed)) throw new ConfigError(`${file} is not a JSON object; fix it.`);
  return parsed;
}

/** " (line N)" when the parser said where it stopped. */
function whereInText(text: string, error: unknown): string {
  const position = /at position (\d+)/.exec((error as Error).message)?.[1];
  if (position === undefined) return "";
  return ` (line ${text.slice(0, Number(position)).split("\n").length})`;
}

interface Origin {
  file: string;
  source: McpServerEntry["source"];
  env: NodeJS.ProcessEnv;
}

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

function serversFrom(servers: unknown, origin: Origin): McpServerEntry[] {
  if (!isRecord(servers)) {
    throw new ConfigError(
      `"mcpServers" in ${origin.file} must be an object that maps server names to definitions.`,
    );
  }
  return Object.entries(servers).map(([name, definition]) => {
    if (!SERVER_NAME.test(name)) {
      throw new ConfigError(
        `Server name ${JSON.stringify(name)} in ${origin.file} may only use letters, digits, "_" and "-".`,
      );
    }
    const config = serverConfig(definition, new ServerFields(name, origin));
    return { name, config, source: origin.source, file: origin.file };
  });
}

function serverConfig(definition: unknown, fields: ServerFields): McpServerConfig {
  if (!isRecord(definition)) {
    fields.fail(`the definition must be an object with "command", or "type": "http" and "url"`);
  }
  const type = definition.type ?? "stdio";
  switch (type) {
    case "stdio": {
      if (definition.command === undefined && definition.url !== undefined) {
        fields.fail(`it has a "url" but no "type"; add "type": "http"`);
      }
      if (definition.command === undefined) {
        fields.fail(`a stdio server needs a "command" (or use "type": "http" and a "url")`);
      }
      const command = fields.expand("command", fields.string(definition, "command"));
      if (command === "") fields.fail(`"command" is empty`);
      const config: McpServerConfig = { type: "stdio", command };
      const args = fields.strings(definition, "args");
      if (args) config.args = args.map((arg, index) => fields.expand(`args[${index}]`, arg));
      const env = fields.expandRecord(definition, "env");
      if (env) config.env = env;
      if (definition.cwd !== undefined) {
        const cwd = fields.expand("cwd", fields.string(definition, "cwd"));
        config.cwd = resolve(dirname(fields.origin.file), cwd);
      }
      return config;
    }
    case "http":
    case "streamable-http": {
      if (definition.url === undefined) fields.fail(`an http server needs a "url"`);
      const url = fields.expand("url", fields.string(definition, "url"));
      if (!isHttpUrl(url)) {
        fields.fail(`"url" must be an http:// or https:// URL, not ${JSON.stringify(url)}`);
      }
      const config: McpServerConfig = { type: "http", url };
      const headers = fields.expandRecord(definition, "headers");
      if (headers) config.headers = headers;
      return config;
    }
    case "sse":
      return fields.fail(
        `"type": "sse" is not supported; use "type": "http" (Streamable HTTP) if the server offers it`,
      );
    default:
      return fields.fail(`"type" is ${JSON.stringify(type)}; use "stdio" or "http"`);
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** Reads one server's fields; every complaint names the server and its file. */
class ServerFields {
  constructor(
    readonly name: string,
    readonly origin: Origin,
  ) {}

  fail(problem: string): never {
    throw new ConfigError(`Server "${this.name}" in ${this.origin.file}: ${problem}.`);
  }

  string(definition: Record<string, unknown>, key: string): string {
    const value = definition[key];
    if (typeof value !== "string") this.fail(`"${key}" must be a string`);
    return value;
  }

  strings(definition: Record<string, unknown>, key: string): string[] | undefined {
    const value = definition[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
      this.fail(`"${key}" must be a list of strings`);
    }
    return value;
  }

  expandRecord(
    definition: Record<string, unknown>,
    key: string,
  ): Record<string, string> | undefined {
    const value = definition[key];
    if (value === undefined) return undefined;
    if (!isRecord(value) || Object.values(value).some((item) => typeof item !== "string")) {
      this.fail(`"${key}" must be an object whose values are strings`);
    }
    const entries = Object.entries(value as Record<string, string>);
    return Object.fromEntries(entries.map(([k, v]) => [k, this.expand(`${key}.${k}`, v)]));
  }

  /** `${VAR}` and `${VAR:-default}` (the default also when VAR is empty, as in the shell). */
  expand(field: string, text: string): string {
    return text.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
      (_match, variable: string, fallback: string | undefined) => {
        const value = this.origin.env[variable];
        if (fallback !== undefined) return value ? value : fallback;
        if (value !== undefined) return value;
        return this.fail(
          `"${field}" uses \${${variable}}, which is not set; set it or write \${${variable}:-default}`,
        );
      },
    );
  }
}

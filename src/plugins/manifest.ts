// A plugin in Claude Code's format (code.claude.com/docs/en/plugins/manifest-reference): a folder
// whose `.claude-plugin/plugin.json` is optional and names the plugin (`name`, the only required
// field); its components sit in their default folders (`skills/`, `commands/`, `agents/`,
// `hooks/hooks.json`, `.mcp.json`) or at the `./` paths the manifest gives, which add to the
// defaults. Fields agentloop does not read are ignored. The vendor-neutral layout, which differs
// only in file names (`plugin.json` and `mcp.json` at the root), loads too. Every file is read
// only where it leads inside the plugin's folder (core/own-file.ts).

import { join, normalize } from "node:path";
import { readOwnFile } from "../core/own-file.js";
import { isRecord } from "../core/settings.js";

/** Claude Code's rule for a plugin's name: kebab-case, lowercase letters, digits and hyphens. */
export const PLUGIN_NAME = /^[a-z0-9][a-z0-9-]*$/;

const MANIFESTS = [join(".claude-plugin", "plugin.json"), "plugin.json"];
const MCP_FILES = [".mcp.json", "mcp.json"];

export interface PluginComponents {
  skills: string[];
  commands: string[];
  agents: string[];
  /** Each hooks file (or the manifest, for hooks written in it), in the settings' shape. */
  hooks: { file: string; settings: Record<string, unknown> }[];
  /** Each `.mcp.json` (or the manifest), as `{name: definition}`. */
  mcpServers: { file: string; servers: Record<string, unknown> }[];
}

export interface PluginFolder {
  name: string;
  root: string;
  components: PluginComponents;
  /** One sentence per mistake, each naming the file and field; the plugin loads only without. */
  problems: string[];
}

/** The plugin in `root`; `defaultName` (its marketplace entry's) when it has no manifest. */
export function readPluginFolder(root: string, defaultName?: string): PluginFolder {
  const problems: string[] = [];
  const manifestFile = MANIFESTS.map((file) => join(root, file)).find(
    (file) => !("missing" in readOwnFile(file, [root])),
  );
  const manifest = manifestFile ? readJsonObject(manifestFile, root, problems) : {};
  const where = manifestFile ?? root;
  let name = defaultName ?? "";
  if (manifestFile && manifest) {
    if (typeof manifest.name !== "string" || manifest.name === "") {
      problems.push(`${where}: "name" is required and must be a string.`);
    } else name = manifest.name;
  }
  if (name !== "" && !PLUGIN_NAME.test(name)) {
    problems.push(
      `${where}: the name "${name}" must be kebab-case (lowercase letters, digits and hyphens).`,
    );
  }
  if (name === "" && !manifestFile) {
    problems.push(`${root} has no .claude-plugin/plugin.json to name it.`);
  }
  const fields = manifest ?? {};
  const paths = (field: string, fallback: string) =>
    [join(root, fallback), ...pathsOf(fields[field], field, root, where, problems)].filter(
      (path, index, all) => all.indexOf(path) === index,
    );
  const components: PluginComponents = {
    skills: paths("skills", "skills"),
    commands: paths("commands", "commands"),
    agents: paths("agents", "agents"),
    hooks: [],
    mcpServers: [],
  };
  for (const file of filesOf(fields.hooks, "hooks", join(root, "hooks", "hooks.json"))) {
    const read = readJsonObject(file, root, problems, file !== join(root, "hooks", "hooks.json"));
    if (read) components.hooks.push({ file, settings: read });
  }
  if (isRecord(fields.hooks)) components.hooks.push({ file: where, settings: fields });
  const defaultMcp = MCP_FILES.map((file) => join(root, file));
  for (const file of filesOf(fields.mcpServers, "mcpServers", ...defaultMcp)) {
    const read = readJsonObject(file, root, problems, !defaultMcp.includes(file));
    if (!read) continue;
    // A `.mcp.json` holds {"mcpServers": {...}}; a file the manifest names may hold them bare.
    const servers = isRecord(read.mcpServers) ? read.mcpServers : read;
    components.mcpServers.push({ file, servers });
  }
  if (isRecord(fields.mcpServers)) {
    components.mcpServers.push({ file: where, servers: fields.mcpServers });
  }
  return { name, root, components, problems };

  /** The default files and the manifest's string paths (an object is written inline). */
  function filesOf(value: unknown, field: string, ...defaults: string[]): string[] {
    const given = isRecord(value) ? [] : pathsOf(value, field, root, where, problems);
    return [...defaults, ...given.filter((file) => !defaults.includes(file))];
  }
}

/** The manifest's path or paths for `field`, each `./`-relative and inside the plugin. */
function pathsOf(
  value: unknown,
  field: string,
  root: string,
  where: string,
  problems: string[],
): string[] {
  if (value === undefined) return [];
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== "string")) {
    problems.push(`${where}: "${field}" must be a path or a list of paths.`);
    return [];
  }
  return (list as string[]).flatMap((path) => {
    if (!path.startsWith("./")) {
      problems.push(`${where}: "${field}" path "${path}" must start with "./".`);
      return [];
    }
    const inside = normalize(path);
    if (inside.startsWith("..")) {
      problems.push(`${where}: "${field}" path "${path}" leads out of the plugin's folder.`);
      return [];
    }
    return [join(root, inside)];
  });
}

/** The file's JSON object; undefined when missing (a problem if `required`) or wrong. */
function readJsonObject(
  file: string,
  root: string,
  problems: string[],
  required = true,
): Record<string, unknown> | undefined {
  const read = readOwnFile(file, [root]);
  if ("missing" in read) {
    if (required) problems.push(`${file} does not exist.`);
    return undefined;
  }
  if ("skipped" in read) {
    problems.push(`${file} was not read: ${read.skipped}.`);
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(read.text);
    if (isRecord(parsed)) return parsed;
  } catch {
    // Reported below, as a value that is not an object is.
  }
  problems.push(`${file} is not a JSON object.`);
  return undefined;
}

// The plugins a session loads: those "enabledPlugins" turns on in the settings in force (the
// person's, then the project's and its local file, a later file winning for a plugin), found
// installed in agentloop's own cache. A project's file is a repository's, so what it enables
// waits, like every key that widens what runs, for the person's trust (core/project-settings.ts).
// The session hands them to skills, commands, agents, hooks and MCP servers as component
// sources (part.ts), one more place beside their own; a session whose settings enable none reads
// nothing more.

import { existsSync, mkdirSync } from "node:fs";
import { type ProjectSettings, readAllSettings } from "../core/project-settings.js";
import { isRecord, userSettingsPath } from "../core/settings.js";
import { stateDirectory } from "../core/state-directory.js";
import { type PluginComponents, readPluginFolder } from "./manifest.js";
import { installedPluginDirectory, parsePluginId, pluginDataDirectory } from "./store.js";

/** Claude Code's settings key: `{"demo@fixture": true}`. */
export const ENABLED_PLUGINS_KEY = "enabledPlugins";

export interface EnabledPlugin {
  /** `demo@fixture`. */
  id: string;
  /** `demo`: the prefix of every name it adds, `demo:review`. */
  name: string;
  root: string;
  dataDirectory: string;
  components: PluginComponents;
}

export interface EnabledPlugins {
  plugins: EnabledPlugin[];
  /** One sentence per plugin enabled but not loaded, and why. */
  problems: string[];
}

/**
 * Read once per process and place, and shared by the parts that read it: plugins load as
 * agentloop starts (Claude Code too asks for a restart after an install), and a session whose
 * settings enable none pays one reading of its settings, not one per part.
 */
const readOnce = new Map<string, Promise<EnabledPlugins>>();

export function enabledPlugins(where: {
  workspace: string;
  /** The real environment: it locates the person's settings and agentloop's state. */
  env: NodeJS.ProcessEnv;
  /** The settings files as the session's start-up read them; absent, read now. */
  read?: ProjectSettings;
}): Promise<EnabledPlugins> {
  const key = [where.workspace, userSettingsPath(where.env), stateDirectory(where.env)].join("\0");
  let read = readOnce.get(key);
  if (!read) {
    read = readEnabledPlugins(where);
    readOnce.set(key, read);
  }
  return read;
}

async function readEnabledPlugins(where: {
  workspace: string;
  env: NodeJS.ProcessEnv;
  read?: ProjectSettings;
}): Promise<EnabledPlugins> {
  const enabled = new Map<string, { on: boolean; file: string }>();
  const problems: string[] = [];
  for (const { file, settings } of await readAllSettings(where)) {
    const value = settings[ENABLED_PLUGINS_KEY];
    if (value === undefined) continue;
    if (!isRecord(value)) {
      problems.push(
        `"${ENABLED_PLUGINS_KEY}" in ${file} must be an object of "name@marketplace": true.`,
      );
      continue;
    }
    for (const [id, on] of Object.entries(value)) enabled.set(id, { on: on === true, file });
  }
  const plugins: EnabledPlugin[] = [];
  for (const [id, { on, file }] of enabled) {
    if (!on) continue;
    const named = parsePluginId(id);
    if (!named) {
      problems.push(`plugin "${id}" in ${file} is not loaded: write it as name@marketplace.`);
      continue;
    }
    const root = installedPluginDirectory(where.env, named);
    if (!existsSync(root)) {
      problems.push(
        `plugin "${id}" is enabled in ${file} but not installed; run agentloop plugin install ${id}.`,
      );
      continue;
    }
    const read = readPluginFolder(root, named.name);
    if (read.problems.length === 0 && read.name !== named.name) {
      read.problems.push(`${root} holds the plugin "${read.name}", not "${named.name}".`);
    }
    if (read.problems.length > 0) {
      problems.push(`plugin "${id}" is not loaded: ${read.problems.join(" ")}`);
      continue;
    }
    const dataDirectory = pluginDataDirectory(where.env, named);
    plugins.push({ id, name: named.name, root, dataDirectory, components: read.components });
  }
  return { plugins, problems };
}

/**
 * The plugin's variables, which its hooks and servers find in their environment and have
 * expanded in their commands, as Claude Code does; its data folder is made as they are asked for.
 */
export function pluginVariables(plugin: EnabledPlugin): Record<string, string> {
  mkdirSync(plugin.dataDirectory, { recursive: true });
  return { CLAUDE_PLUGIN_ROOT: plugin.root, CLAUDE_PLUGIN_DATA: plugin.dataDirectory };
}

// Where agentloop keeps plugins, in its own state directory (core/state-directory.ts), never in
// a repository: the marketplaces the person added (known-marketplaces.json, and a clone of each
// one added from git), the installed plugins' copies (cache/MARKETPLACE/PLUGIN) and the folder
// each plugin may keep data in across updates (data/PLUGIN-MARKETPLACE, ${CLAUDE_PLUGIN_DATA}).

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomically } from "../core/atomic-write.js";
import { ConfigError } from "../core/errors.js";
import { isRecord, readSettings } from "../core/settings.js";
import { stateDirectory } from "../core/state-directory.js";

export function pluginsDirectory(env: NodeJS.ProcessEnv): string {
  return join(stateDirectory(env), "plugins");
}

export function installedPluginDirectory(
  env: NodeJS.ProcessEnv,
  plugin: { name: string; marketplace: string },
): string {
  return join(pluginsDirectory(env), "cache", plugin.marketplace, plugin.name);
}

export function pluginDataDirectory(
  env: NodeJS.ProcessEnv,
  plugin: { name: string; marketplace: string },
): string {
  return join(pluginsDirectory(env), "data", `${plugin.name}-${plugin.marketplace}`);
}

/** Where a marketplace added from git is cloned. */
export function marketplaceCloneDirectory(env: NodeJS.ProcessEnv, name: string): string {
  return join(pluginsDirectory(env), "marketplaces", name);
}

export interface KnownMarketplace {
  /** As the person gave it: a folder's absolute path, or a git URL. */
  source: { source: "directory"; path: string } | { source: "git"; url: string };
  /** The folder holding `.claude-plugin/marketplace.json`. */
  installLocation: string;
}

const knownFile = (env: NodeJS.ProcessEnv) =>
  join(pluginsDirectory(env), "known-marketplaces.json");

export async function readKnownMarketplaces(
  env: NodeJS.ProcessEnv,
): Promise<Record<string, KnownMarketplace>> {
  const file = knownFile(env);
  const known = await readSettings(file);
  for (const [name, entry] of Object.entries(known)) {
    if (!isRecord(entry) || typeof entry.installLocation !== "string" || !isRecord(entry.source)) {
      throw new ConfigError(
        `${file}: the marketplace "${name}" is malformed; remove it and add it again.`,
      );
    }
  }
  return known as Record<string, KnownMarketplace>;
}

export async function writeKnownMarketplaces(
  env: NodeJS.ProcessEnv,
  known: Record<string, KnownMarketplace>,
): Promise<void> {
  await mkdir(pluginsDirectory(env), { recursive: true });
  await writeFileAtomically(knownFile(env), `${JSON.stringify(known, null, 2)}\n`);
}

/** `demo@fixture` as its two names, or null when it is not of that shape. */
export function parsePluginId(id: string): { name: string; marketplace: string } | null {
  const match = /^([^@/\\]+)@([^@/\\]+)$/.exec(id);
  return match ? { name: match[1] as string, marketplace: match[2] as string } : null;
}

// A marketplace in Claude Code's format (code.claude.com/docs/en/plugins/marketplace-reference):
// a folder whose `.claude-plugin/marketplace.json` names it and lists its plugins, each with a
// `source`. agentloop installs the sources that are a `./` path inside the marketplace; other
// kinds (github, url, npm) are named as not supported rather than fetched.

import { join, normalize } from "node:path";
import { ConfigError } from "../core/errors.js";
import { readOwnFile } from "../core/own-file.js";
import { isRecord } from "../core/settings.js";
import { PLUGIN_NAME } from "./manifest.js";

export interface MarketplaceEntry {
  name: string;
  description?: string;
  /** The plugin's folder, inside the marketplace; null when its source is of another kind. */
  folder: string | null;
  /** The source as written, for the sentence that says it is not supported. */
  source: unknown;
}

export interface Marketplace {
  name: string;
  file: string;
  plugins: MarketplaceEntry[];
}

export function marketplaceFile(root: string): string {
  return join(root, ".claude-plugin", "marketplace.json");
}

export function readMarketplace(root: string): Marketplace {
  const file = marketplaceFile(root);
  const read = readOwnFile(file, [root]);
  if ("missing" in read) throw new ConfigError(`${root} has no .claude-plugin/marketplace.json.`);
  if ("skipped" in read) throw new ConfigError(`${file} was not read: ${read.skipped}.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.text);
  } catch {
    throw new ConfigError(`${file} is not valid JSON; fix it.`);
  }
  if (!isRecord(parsed)) throw new ConfigError(`${file} is not a JSON object; fix it.`);
  const { name, plugins } = parsed;
  if (typeof name !== "string" || !PLUGIN_NAME.test(name)) {
    throw new ConfigError(
      `${file}: "name" must be kebab-case (lowercase letters, digits, hyphens).`,
    );
  }
  if (!Array.isArray(plugins)) throw new ConfigError(`${file}: "plugins" must be a list.`);
  const pluginRoot = isRecord(parsed.metadata) ? parsed.metadata.pluginRoot : undefined;
  return {
    name,
    file,
    plugins: plugins.map((entry, index) => readEntry(entry, index, root, file, pluginRoot)),
  };
}

function readEntry(
  entry: unknown,
  index: number,
  root: string,
  file: string,
  pluginRoot: unknown,
): MarketplaceEntry {
  if (!isRecord(entry) || typeof entry.name !== "string" || !PLUGIN_NAME.test(entry.name)) {
    throw new ConfigError(`${file}: plugins[${index}] needs a kebab-case "name".`);
  }
  const { name, source } = entry;
  const description = typeof entry.description === "string" ? entry.description : undefined;
  let folder: string | null = null;
  if (typeof source === "string") {
    // A bare name is relative to metadata.pluginRoot, as Claude Code reads it.
    const base = typeof pluginRoot === "string" && !source.startsWith("./") ? pluginRoot : ".";
    const inside = normalize(join(base, source));
    if (inside.startsWith("..")) {
      throw new ConfigError(`${file}: the source of "${name}" leads out of the marketplace.`);
    }
    folder = join(root, inside);
  }
  return { name, ...(description ? { description } : {}), folder, source };
}

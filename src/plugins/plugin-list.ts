// The installed plugins, each enabled or disabled where the session runs, then why an enabled
// one is not loaded: what `agentloop plugin list` prints and `/plugins` shows at the REPL.

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { enabledPlugins } from "./enabled.js";
import { pluginsDirectory } from "./store.js";

export async function pluginLines(where: {
  workspace: string;
  env: NodeJS.ProcessEnv;
}): Promise<string[]> {
  const cache = join(pluginsDirectory(where.env), "cache");
  const ids = entriesOf(cache).flatMap((marketplace) =>
    entriesOf(join(cache, marketplace))
      .filter((name) => !name.endsWith(".installing"))
      .map((name) => `${name}@${marketplace}`),
  );
  const { plugins, problems } = await enabledPlugins(where);
  const loaded = new Set(plugins.map((plugin) => plugin.id));
  return [
    ...(ids.length === 0
      ? ["No plugins installed: install one with agentloop plugin install NAME@MARKETPLACE."]
      : ids.map((id) => `${id}\t${loaded.has(id) ? "enabled" : "disabled"}`)),
    ...problems,
  ];
}

function entriesOf(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}

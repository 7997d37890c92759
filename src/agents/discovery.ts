// Where agent definitions are found: .agentloop/agents/ and .claude/agents/ in every directory
// from the workspace up to the repository root (nearest first), then the user's
// ~/.config/agentloop/agents/ and ~/.claude/agents/, then the agent folders of the session's
// component sources (core/component-sources.ts: the enabled plugins'). The first definition of
// a name wins, and one of a built-in's name replaces the built-in. A definition that links out
// of the place it belongs to (the repository, or the person's home and configuration) is
// skipped with a notice.

import { readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ComponentSources } from "../core/component-sources.js";
import { directoriesFromRepositoryRoot } from "../core/git-directory.js";
import { personalPlaces, readOwnFile, repositoryPlace } from "../core/own-file.js";
import { BUILT_IN_AGENTS } from "./built-ins.js";
import { type AgentDefinition, parseDefinition } from "./definition.js";

export interface FoundAgents {
  /** Built-ins first, then the definitions in the order found. */
  agents: AgentDefinition[];
  /** One sentence for each file that was skipped. */
  notices: string[];
}

export function findAgents(options: {
  workspace: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Folders beside the person's own (enabled plugins'), as the session's chapters gave them. */
  sources?: ComponentSources;
}): FoundAgents {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const configHome = env.XDG_CONFIG_HOME || join(home, ".config");
  const repository = [repositoryPlace(options.workspace)];
  const personal = personalPlaces({ ...env, HOME: home, XDG_CONFIG_HOME: configHome });
  /** Each folder with the places its definitions may lead to. */
  const folders = [
    ...nearestFirst(options.workspace).flatMap((directory) => [
      { folder: join(directory, ".agentloop", "agents"), places: repository },
      { folder: join(directory, ".claude", "agents"), places: repository },
    ]),
    { folder: join(configHome, "agentloop", "agents"), places: personal },
    { folder: join(home, ".claude", "agents"), places: personal },
  ];
  // Then each source's (an enabled plugin's), read only inside its folder, named `plugin:name`.
  const sourceFolders = (options.sources?.sources ?? []).flatMap((source) =>
    source.agents.map((folder) => ({ folder, places: [source.root], prefix: source.prefix })),
  );
  const byName = new Map<string, AgentDefinition>();
  const notices: string[] = [];
  const files = [...folders.map((each) => ({ ...each, prefix: "" })), ...sourceFolders].flatMap(
    ({ folder, places, prefix }) => markdownFiles(folder).map((file) => ({ file, places, prefix })),
  );
  for (const { file, places, prefix } of files) {
    const read = readOwnFile(file, places);
    if (!("text" in read)) {
      const why = "skipped" in read ? read.skipped : "it no longer exists";
      notices.push(`agent definition ${file} skipped: ${why}.`);
      continue;
    }
    const parsed = parseDefinition(read.text, file);
    if ("skip" in parsed) notices.push(`agent definition ${file} skipped: ${parsed.skip}.`);
    else if (!byName.has(prefix + parsed.name))
      byName.set(prefix + parsed.name, { ...parsed, name: prefix + parsed.name });
  }
  const builtIns = BUILT_IN_AGENTS.filter((agent) => !byName.has(agent.name));
  return { agents: [...builtIns, ...byName.values()], notices };
}

/** The workspace and its parents up to the repository root, nearest first. */
const nearestFirst = (workspace: string) => directoriesFromRepositoryRoot(workspace).reverse();

function markdownFiles(directory: string): string[] {
  try {
    return readdirSync(directory)
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => join(directory, name));
  } catch {
    return [];
  }
}

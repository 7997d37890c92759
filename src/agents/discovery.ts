// Where agent definitions are found: .agentloop/agents/ and .claude/agents/ in every directory
// from the workspace up to the repository root (nearest first), then the user's
// ~/.config/agentloop/agents/ and ~/.claude/agents/. The first definition of a name wins, and
// one of a built-in's name replaces the built-in.

import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { directoriesFromRepositoryRoot } from "../core/git-directory.js";
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
}): FoundAgents {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  const configHome = env.XDG_CONFIG_HOME || join(home, ".config");
  const directories = [
    ...nearestFirst(options.workspace).flatMap((directory) => [
      join(directory, ".agentloop", "agents"),
      join(directory, ".claude", "agents"),
    ]),
    join(configHome, "agentloop", "agents"),
    join(home, ".claude", "agents"),
  ];
  const byName = new Map<string, AgentDefinition>();
  const notices: string[] = [];
  for (const file of directories.flatMap(markdownFiles)) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      notices.push(`agent definition ${file} skipped: ${(error as Error).message}.`);
      continue;
    }
    const parsed = parseDefinition(text, file);
    if ("skip" in parsed) notices.push(`agent definition ${file} skipped: ${parsed.skip}.`);
    else if (!byName.has(parsed.name)) byName.set(parsed.name, parsed);
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

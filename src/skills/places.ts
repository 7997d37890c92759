// Where agentloop looks for the files that carry knowledge: the project's directories, from
// the repository root down to the workspace, and the user's own configuration directories.

import { statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ComponentSources } from "../core/component-sources.js";
import { directoriesFromRepositoryRoot } from "../core/git-directory.js";
import type { ProjectSettings } from "../core/project-settings.js";

/** Who put a file there: the repository (shared, untrusted) or the user (personal). */
export type Scope = "project" | "user";

export interface Where {
  cwd: string;
  /** The real environment: XDG_CONFIG_HOME and HOME say where the user's files are. */
  env: NodeJS.ProcessEnv;
  /** The settings files as the session's start-up read them; absent, read now. */
  read?: ProjectSettings;
  /** Folders beside the person's own (enabled plugins'), as the session's chapters gave them. */
  sources?: ComponentSources;
}

/** The user's home, as HOME says (so tests and sandboxes can move it), else the system's. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

/** `$XDG_CONFIG_HOME/agentloop`, by default `~/.config/agentloop` (as core/settings.ts reads). */
export function agentloopConfigDirectory(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(homeOf(env), ".config"), "agentloop");
}

/**
 * The folders holding files of one kind (`skills`, `commands`), in the order they are
 * searched: the user's first, so a repository cannot replace a skill of the user's by taking
 * its name (Claude Code's order too), then the project's from the workspace up to the root.
 */
export function searchFolders(
  kind: "skills" | "commands",
  where: Where,
): { folder: string; scope: Scope }[] {
  const home = homeOf(where.env);
  const user = [
    join(agentloopConfigDirectory(where.env), kind),
    join(home, ".claude", kind),
    ...(kind === "skills" ? [join(home, ".agents", kind)] : []),
  ];
  const project = directoriesFromRepositoryRoot(where.cwd)
    .reverse()
    .flatMap((directory) => [
      join(directory, ".agentloop", kind),
      join(directory, ".claude", kind),
      ...(kind === "skills" ? [join(directory, ".agents", kind)] : []),
    ]);
  return [
    ...user.map((folder) => ({ folder, scope: "user" as const })),
    ...project.map((folder) => ({ folder, scope: "project" as const })),
  ];
}

/** True when `path` is a file (not a folder, not missing). */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

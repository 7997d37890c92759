// The settings files: the user's ($XDG_CONFIG_HOME/agentloop/settings.json), the project's
// (.agentloop/settings.json, which the repository ships) and the project's local one
// (.agentloop/settings.local.json, the person's own in this project, where "always" writes).
// Each part of agentloop reads its own keys from them through project-settings.ts, which
// holds back what a project's files may not decide alone.

import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { ConfigError } from "./errors.js";
import { readOwnFile } from "./own-file.js";

export function projectSettingsPath(workspace: string): string {
  return join(workspace, ".agentloop", "settings.json");
}

export function localSettingsPath(workspace: string): string {
  return join(workspace, ".agentloop", "settings.local.json");
}

export function userSettingsPath(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const configHome = env.XDG_CONFIG_HOME || join(home, ".config");
  return join(configHome, "agentloop", "settings.json");
}

/**
 * The file as a JSON object ({} when there is none). It is read only where it leads inside its
 * place: the folder holding its `agentloop` or `.agentloop` folder (the project, or the person's
 * configuration or state directory), so that a repository's settings file cannot be a link to a
 * device or to a file of the person's; a person's own file (in an `agentloop` folder) may also
 * lead anywhere in their home, as into a dotfiles checkout.
 */
export async function readSettings(file: string): Promise<Record<string, unknown>> {
  const folder = dirname(file);
  const places = [dirname(folder), ...(basename(folder) === "agentloop" ? [homedir()] : [])];
  const read = readOwnFile(file, places);
  if ("missing" in read) return {};
  if ("skipped" in read)
    throw new ConfigError(`${file} was not read: ${read.skipped}; fix or remove it.`);
  const text = read.text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
  } catch {
    // Reported below with the same sentence as a JSON value that is not an object.
  }
  throw new ConfigError(`${file} is not a JSON object; fix or remove it.`);
}

/**
 * A key only the person's own settings may set (a repository's file could otherwise widen what
 * agentloop does for itself): its value there, the file, and a sentence for the person when the
 * project's file sets it too, which is ignored; `lets` ends that sentence ("can ...").
 */
export async function readUserOnlyKey(
  workspace: string,
  env: NodeJS.ProcessEnv,
  key: string,
  lets: string,
): Promise<{ value: unknown; file: string; ignored: string | null }> {
  const file = userSettingsPath(env);
  const projectFile = projectSettingsPath(workspace);
  const [user, project] = await Promise.all([readSettings(file), readSettings(projectFile)]);
  const ignored =
    project[key] === undefined
      ? null
      : `"${key}" in ${projectFile} is ignored: only your own settings (${file}) can ${lets}.`;
  return { value: user[key], file, ignored };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// The settings files: the user's ($XDG_CONFIG_HOME/agentloop/settings.json), the project's
// (.agentloop/settings.json, which the repository ships) and the project's local one
// (.agentloop/settings.local.json, the person's own in this project, where "always" writes).
// Each part of agentloop reads its own keys from them through project-settings.ts, which
// holds back what a project's files may not decide alone.

import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "./errors.js";

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

export async function readSettings(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}.`);
  }
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

// The settings files: the user's ($XDG_CONFIG_HOME/agentloop/settings.json) and the project's
// (.agentloop/settings.json). Each part of agentloop reads its own keys from them; the
// project's file wins where both set a key.

import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "./errors.js";

export function projectSettingsPath(workspace: string): string {
  return join(workspace, ".agentloop", "settings.json");
}

export function userSettingsPath(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const configHome = env.XDG_CONFIG_HOME || join(home, ".config");
  return join(configHome, "agentloop", "settings.json");
}

/** The user's settings, then the project's, each as a JSON object (a missing file is {}). */
export async function readAllSettings(options: {
  workspace: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}): Promise<{ file: string; settings: Record<string, unknown> }[]> {
  const files = [
    userSettingsPath(options.env, options.home),
    projectSettingsPath(options.workspace),
  ];
  return Promise.all(files.map(async (file) => ({ file, settings: await readSettings(file) })));
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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

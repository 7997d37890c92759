// How deep subagents may nest: "agentDepth" in a settings file (the project's wins). At 1,
// the default, a child has no agent tool; at 2 or 3 a child may run children of its own.

import { ConfigError } from "../core/errors.js";
import { type ProjectSettings, readAllSettings } from "../core/project-settings.js";

export const DEFAULT_AGENT_DEPTH = 1;
export const MAX_AGENT_DEPTH = 3;

export async function chooseAgentDepth(input: {
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** The files as start-up read them, once for every part (SettingsPlace). */
  read?: ProjectSettings;
}): Promise<number> {
  let depth = DEFAULT_AGENT_DEPTH;
  for (const { file, settings } of await readAllSettings(input)) {
    const value = settings.agentDepth;
    if (value === undefined) continue;
    if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_AGENT_DEPTH) {
      throw new ConfigError(
        `"agentDepth" in ${file} must be 1, 2 or ${MAX_AGENT_DEPTH}: how deep agents may run agents.`,
      );
    }
    depth = value as number;
  }
  return depth;
}

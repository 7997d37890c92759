// Whether this session remembers: off unless the person says so, with "memory": true (or "ask")
// in their own settings file or --memory on the command line. A repository's settings cannot
// turn it on: what agentloop keeps about a person and their projects is theirs to decide.

import { ConfigError } from "../core/errors.js";
import { type ProjectSettings, settingsOf } from "../core/project-settings.js";
import { projectSettingsPath, userSettingsPath } from "../core/settings.js";

/**
 * "on": what the session proposes is written at once; "ask": it waits in the inbox for the
 * person's yes (/memory approve); "off": nothing of memory is offered or read.
 */
export type MemoryChoice = "off" | "on" | "ask";

export async function chooseMemory(input: {
  /** --memory */
  flag: boolean;
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** The settings files as start-up read them; absent, they are read now. */
  read?: ProjectSettings;
  /** Tells the person a project's setting was not followed. */
  notice(sentence: string): void;
}): Promise<MemoryChoice> {
  const file = userSettingsPath(input.env);
  const value = (await settingsOf(file, input.read)).memory;
  const project = projectSettingsPath(input.workspace);
  if ((await settingsOf(project, input.read)).memory !== undefined) {
    input.notice(
      `"memory" in ${project} is not followed: memory is turned on in your own settings (${file}) or with --memory.`,
    );
  }
  if (value !== undefined && value !== true && value !== false && value !== "ask") {
    throw new ConfigError(`"memory" in ${file} must be true, false or "ask".`);
  }
  if (value === "ask") return "ask";
  return value === true || input.flag ? "on" : "off";
}

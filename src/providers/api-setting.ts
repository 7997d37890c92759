// Which of OpenAI's two protocols to speak, when the user says: --api on the command line,
// else "api" in a settings file (the project's wins over the user's). Unsaid, the preset
// decides (presets.ts).

import { ConfigError } from "../core/errors.js";
import { type ProjectSettings, readAllSettings } from "../core/project-settings.js";
import { OPENAI_APIS, type OpenAIApi } from "./presets.js";

export async function chooseApi(input: {
  /** --api */
  flag: string | undefined;
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** The files as start-up read them, once for every part (SettingsPlace). */
  read?: ProjectSettings;
}): Promise<OpenAIApi | undefined> {
  if (input.flag !== undefined) return parseApi(input.flag, "--api");
  let chosen: OpenAIApi | undefined;
  for (const { file, settings } of await readAllSettings(input)) {
    if (settings.api !== undefined) chosen = parseApi(settings.api, `"api" in ${file}`);
  }
  return chosen;
}

export function parseApi(value: unknown, where: string): OpenAIApi {
  if (OPENAI_APIS.includes(value as OpenAIApi)) return value as OpenAIApi;
  throw new ConfigError(
    `${where} must be ${OPENAI_APIS.join(" or ")} (OpenAI's Responses or Chat Completions API), got ${JSON.stringify(value)}.`,
  );
}

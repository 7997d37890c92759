// The environment agentloop configures itself from: the real one over the workspace's .env, as
// the course's tutorial reads it. A .env comes with the repository, so it may not choose where
// the session goes once the person has a key of their own: with a person who has only
// OPENAI_API_KEY, a .env bringing ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL of its own would
// otherwise pick the Anthropic preset and send the whole session (system prompt, prompts, every
// file the tools read) to the repository's server. Its provider variables are then ignored,
// with a notice naming the file and them; the session goes on with the person's own setup. The
// course's setup (nothing of the person's own, a key, its address and MODEL_ID in one .env)
// works as before. gemini-cli reads no .env of an untrusted folder
// (https://geminicli.com/docs/cli/trusted-folders); the person may allow one project's .env in
// full by its path, but for where agentloop keeps and downloads its files, which never come
// from a .env.

import { join } from "node:path";
import { listsProject, projectKey } from "../core/approvals.js";
import { readDotenv } from "../core/dotenv.js";
import { repositoryPlace } from "../core/own-file.js";
import { readSettings, userSettingsPath } from "../core/settings.js";
import { PRESET_NAMES, PRESETS } from "./presets.js";

/**
 * Where agentloop keeps its files (settings, approvals, sessions, downloaded models) and where
 * it downloads a local model from: never from a .env, which must not point agentloop at files
 * it wrote or at a "hub" that serves its own weights under the default model's name.
 */
const NEVER_FROM_DOTENV = new Set([
  "HOME",
  "XDG_CONFIG_HOME",
  "XDG_STATE_HOME",
  "XDG_CACHE_HOME",
  "HF_ENDPOINT",
]);

/** The variables that hold a provider's key (the presets'): the person "has a key" by these. */
const KEY_VARIABLES = PRESET_NAMES.flatMap((name) => PRESETS[name].apiKeyEnv ?? []);

/** The variables that choose the provider, its address, its key or its model. */
function choosesProvider(name: string): boolean {
  return (
    /^(ANTHROPIC|OPENAI|OPENROUTER|DEEPSEEK)_/.test(name) ||
    name === "MODEL_ID" ||
    KEY_VARIABLES.includes(name)
  );
}

export interface DotenvChoice {
  /** The .env's path, named in a notice. */
  file: string;
  dotenv: Record<string, string>;
  /** The real environment. */
  env: NodeJS.ProcessEnv;
  /** The person's own settings allow this project's .env. */
  allowed: boolean;
  /** How to allow it in their settings: `add "/path" to "allowProjectDotenv" in FILE`. */
  allowInSettings: string;
}

export interface ConfigurationEnv {
  /** The real environment over what of the .env counts. */
  env: NodeJS.ProcessEnv;
  /** One sentence for each group of the .env's variables that were not used. */
  notices: string[];
}

/** The real environment over the .env, less what a .env may not set here. */
export function configurationEnv(choice: DotenvChoice): ConfigurationEnv {
  const ownKeys = KEY_VARIABLES.filter((name) => choice.env[name]);
  const never: string[] = [];
  const provider: string[] = [];
  const used: Record<string, string> = {};
  for (const [name, value] of Object.entries(choice.dotenv)) {
    if (NEVER_FROM_DOTENV.has(name)) never.push(name);
    else if (ownKeys.length > 0 && !choice.allowed && choosesProvider(name)) provider.push(name);
    else used[name] = value;
  }
  const notices: string[] = [];
  if (provider.length > 0) {
    notices.push(
      `${choice.file} sets ${provider.join(", ")}, not used: you have your own ${ownKeys.join(", ")}, and a repository's .env does not choose where your session goes; to use them, ${choice.allowInSettings}.`,
    );
  }
  if (never.length > 0) {
    notices.push(
      `${choice.file} sets ${never.join(", ")}, not used: where agentloop keeps its files and downloads models from comes from your own environment alone.`,
    );
  }
  return { env: { ...used, ...choice.env }, notices };
}

/** The workspace's .env under the real environment, and what of it was not used. */
export async function workspaceEnvironment(where: {
  workspace: string;
  /** The real environment, which also locates the person's settings. */
  env: NodeJS.ProcessEnv;
}): Promise<ConfigurationEnv> {
  const file = join(where.workspace, ".env");
  const { values, skipped } = readDotenv(file, [repositoryPlace(where.workspace)]);
  const notices = skipped ? [skipped] : [];
  if (Object.keys(values).length === 0) return { env: { ...where.env }, notices };
  const userFile = userSettingsPath(where.env);
  const project = await projectKey(where.workspace);
  const settings = await readSettings(userFile);
  const chosen = configurationEnv({
    file,
    dotenv: values,
    env: where.env,
    allowed: await listsProject(settings, "allowProjectDotenv", project, userFile),
    allowInSettings: `add "${project}" to "allowProjectDotenv" in ${userFile}`,
  });
  return { env: chosen.env, notices: [...notices, ...chosen.notices] };
}

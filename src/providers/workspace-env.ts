// The environment agentloop configures itself from: the real one over the workspace's .env, as
// the course's tutorial reads it. A .env comes with the repository, and many hold a base URL for
// their own code, so an address it gives is used only with a key from the same file: a
// repository must not send the person's own key where it says. gemini-cli reads no .env of an
// untrusted folder (https://geminicli.com/docs/cli/trusted-folders); here the rest of the file
// (MODEL_ID, or a key and its address together, the course's setup) still counts, and the
// person may allow one project's .env in full by its path.

import { join } from "node:path";
import { listsProject, projectKey } from "../core/approvals.js";
import { readDotenv } from "../core/dotenv.js";
import { ConfigError } from "../core/errors.js";
import { readSettings, userSettingsPath } from "../core/settings.js";
import { chosenPreset, isPresetName, PRESETS } from "./presets.js";

/** An address that decides where a credential is sent, and that credential. */
interface Route {
  address: string;
  credential: string;
  /** --base-url sets the address instead. */
  byFlag: boolean;
}

/**
 * Where agentloop keeps its files (settings, approvals, sessions, downloaded models) comes from
 * the real environment alone: a repository's .env must not point it at files it wrote, such as
 * a model file for --provider local to load as the one asked for.
 */
const LOCATIONS = new Set(["HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"]);

/** The hub's address and token, which a local model's download sends (hugging-face.ts). */
const HUB: Route = { address: "HF_ENDPOINT", credential: "HF_TOKEN", byFlag: false };

export interface DotenvChoice {
  /** The .env's path, named when it is refused. */
  file: string;
  dotenv: Record<string, string>;
  /** The real environment. */
  env: NodeJS.ProcessEnv;
  /** --provider */
  provider?: string;
  /** --base-url */
  baseURL?: string;
  /** The person's own settings allow this project's .env. */
  allowed: boolean;
  /** How to allow it in their settings: `add "/path" to "allowProjectDotenv" in FILE`. */
  allowInSettings: string;
}

/**
 * The real environment over the .env, less the .env's LOCATIONS; a ConfigError when the
 * provider the run would use takes its address from the .env and its key from elsewhere. It
 * never falls back to another address.
 */
export function configurationEnv(choice: DotenvChoice): NodeJS.ProcessEnv | ConfigError {
  const dotenv = Object.entries(choice.dotenv).filter(([name]) => !LOCATIONS.has(name));
  const merged = { ...Object.fromEntries(dotenv), ...choice.env };
  const route = choice.allowed ? null : routeOf(choice, merged);
  if (!route) return merged;
  const address = choice.env[route.address] === undefined ? choice.dotenv[route.address] : "";
  if (!address || !choice.env[route.credential]) return merged;
  const ways = [
    `set ${route.address} yourself`,
    ...(route.byFlag ? ["pass --base-url"] : []),
    choice.allowInSettings,
  ];
  return new ConfigError(
    `${choice.file} sets ${route.address} to ${address}, which would receive your own ${route.credential}; to go on, ${ways.slice(0, -1).join(", ")} or ${ways.at(-1)}.`,
  );
}

/** The address and credential the chosen provider sends, unless --base-url replaces the address. */
function routeOf(choice: DotenvChoice, merged: NodeJS.ProcessEnv): Route | null {
  const name = chosenPreset({ provider: choice.provider, env: merged });
  if (name === undefined || !isPresetName(name)) return null;
  const preset = PRESETS[name];
  if (preset.protocol === "local") return HUB;
  if (!preset.baseURLEnv || !preset.apiKeyEnv || choice.baseURL !== undefined) return null;
  return { address: preset.baseURLEnv, credential: preset.apiKeyEnv, byFlag: true };
}

/** The workspace's .env under the real environment, for the provider the flags choose. */
export async function workspaceEnvironment(where: {
  workspace: string;
  /** The real environment, which also locates the person's settings. */
  env: NodeJS.ProcessEnv;
  provider?: string;
  baseURL?: string;
}): Promise<NodeJS.ProcessEnv> {
  const file = join(where.workspace, ".env");
  const dotenv = readDotenv(file);
  if (Object.keys(dotenv).length === 0) return { ...where.env };
  const userFile = userSettingsPath(where.env);
  const project = await projectKey(where.workspace);
  const settings = await readSettings(userFile);
  const merged = configurationEnv({
    ...where,
    file,
    dotenv,
    allowed: await listsProject(settings, "allowProjectDotenv", project, userFile),
    allowInSettings: `add "${project}" to "allowProjectDotenv" in ${userFile}`,
  });
  if (merged instanceof ConfigError) throw merged;
  return merged;
}

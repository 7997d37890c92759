// Which model server to talk to, decided from flags and environment. A preset names a server
// people run (OpenAI, Ollama, ...) with its protocol, address and key variable, so that
// `agentloop --provider ollama --model qwen2.5-coder` needs nothing else.

import { ConfigError } from "../core/errors.js";
import { DEFAULT_LOCAL_MODEL } from "./local-model-names.js";
import { isLocalURL } from "./network-errors.js";

export { DEFAULT_LOCAL_MODEL };

/** How agentloop talks to the model: one of two HTTP APIs, or a model run in this process. */
export type WireProtocol = "anthropic" | "openai" | "local";

/**
 * The two protocols of the OpenAI API: Chat Completions, which every compatible server speaks
 * too, and Responses, which OpenAI's current models need for tools (see openai-responses.ts).
 */
export type OpenAIApi = "responses" | "chat";

export const OPENAI_APIS: OpenAIApi[] = ["responses", "chat"];

/**
 * OpenAI's current general model: "our go-to model for everyday work, from coding to powering
 * agents at scale" (https://developers.openai.com/api/docs/models/gpt-6.2-sol), released on
 * 2026-11-17.
 */
export const DEFAULT_OPENAI_MODEL = "gpt-6.2-sol";

export interface Preset {
  protocol: WireProtocol;
  baseURL: string;
  /** The environment variable holding the key; null for local servers that need none. */
  apiKeyEnv: string | null;
  /** The environment variable that overrides the base URL, if the preset honours one. */
  baseURLEnv: string | null;
  /** The environment variable that names the model, if the preset honours one. */
  modelEnv: string | null;
  defaultModel: string | null;
  /** For the OpenAI protocol, which of its APIs the server is spoken to in unless --api says. */
  api?: OpenAIApi;
}

function hosted(
  protocol: WireProtocol,
  baseURL: string,
  apiKeyEnv: string,
  defaultModel: string | null,
): Preset {
  return { protocol, baseURL, apiKeyEnv, baseURLEnv: null, modelEnv: null, defaultModel };
}

function local(baseURL: string): Preset {
  return {
    protocol: "openai",
    baseURL,
    apiKeyEnv: null,
    baseURLEnv: null,
    modelEnv: null,
    defaultModel: null,
  };
}

/** In the order a key in the environment is looked for when no --provider is given. */
export const PRESETS = {
  anthropic: {
    ...hosted("anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "claude-sonnet-5-5"),
    baseURLEnv: "ANTHROPIC_BASE_URL",
    modelEnv: "MODEL_ID",
  },
  openai: {
    ...hosted("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", DEFAULT_OPENAI_MODEL),
    baseURLEnv: "OPENAI_BASE_URL",
    api: "responses",
  },
  openrouter: hosted("openai", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", null),
  deepseek: hosted("openai", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", "deepseek-flash"),
  ollama: local("http://localhost:11434/v1"),
  lmstudio: local("http://localhost:1234/v1"),
  vllm: local("http://localhost:8000/v1"),
  llamacpp: local("http://localhost:8080/v1"),
  // A GGUF file run in this process; --model is a path or hf:OWNER/REPO/FILE.gguf.
  local: {
    protocol: "local",
    baseURL: "",
    apiKeyEnv: null,
    baseURLEnv: null,
    modelEnv: null,
    defaultModel: DEFAULT_LOCAL_MODEL,
  },
} satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;

export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export interface ResolvedProvider {
  preset: PresetName;
  protocol: WireProtocol;
  baseURL: string;
  /** Null when the server needs no key (a local server). */
  apiKey: string | null;
  apiKeyEnv: string | null;
  model: string;
  /** For the OpenAI protocol, the API spoken: the preset's unless --api chose. */
  api?: OpenAIApi;
}

export interface ProviderChoice {
  /** --provider */
  provider?: string;
  /** --model */
  model?: string;
  /** --base-url */
  baseURL?: string;
  /** --api or the settings' "api", already checked to be one of OPENAI_APIS. */
  api?: OpenAIApi;
  env: Record<string, string | undefined>;
}

const NO_PROVIDER =
  "No model is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, run a model in agentloop itself with --provider local (it downloads Qwen3.5-4B, 2.7 GB, on first use), or pass --provider with a local server (ollama, lmstudio, vllm, llamacpp) and --model, for example --provider ollama --model qwen2.5-coder.";

/** The preset a choice means, known or not: --provider, else the first whose key is set. */
export function chosenPreset(choice: Pick<ProviderChoice, "provider" | "env">): string | undefined {
  return (
    choice.provider ??
    PRESET_NAMES.find((preset) => variable(choice.env, PRESETS[preset].apiKeyEnv) !== undefined)
  );
}

export function resolveProvider(choice: ProviderChoice): ResolvedProvider | ConfigError {
  const env = (name: string | null) => variable(choice.env, name);
  const name = chosenPreset(choice);
  if (name === undefined) return new ConfigError(NO_PROVIDER);
  if (!isPresetName(name)) {
    return new ConfigError(`Unknown provider "${name}": choose one of ${PRESET_NAMES.join(", ")}.`);
  }
  const preset: Preset = PRESETS[name];
  if (choice.api !== undefined && preset.protocol !== "openai") {
    return new ConfigError(
      `--api chooses between OpenAI's protocols and does not apply to --provider ${name}.`,
    );
  }
  if (preset.protocol === "local") return resolveLocal(choice);

  const baseURL = choice.baseURL ?? env(preset.baseURLEnv) ?? preset.baseURL;
  if (!isHttpURL(baseURL)) {
    return new ConfigError(
      `The base URL "${baseURL}" is not a URL: write it like http://localhost:11434/v1.`,
    );
  }
  const apiKey = env(preset.apiKeyEnv) ?? null;
  // An OpenAI-compatible server on this machine (--base-url) may run without a key; the
  // Anthropic SDK always sends one.
  const keyOptional = preset.protocol === "openai" && isLocalURL(baseURL);
  if (preset.apiKeyEnv && apiKey === null && !keyOptional) {
    return new ConfigError(`The ${name} provider needs an API key: set ${preset.apiKeyEnv}.`);
  }
  const model = choice.model ?? env(preset.modelEnv) ?? preset.defaultModel;
  if (model === null) {
    return new ConfigError(
      `The ${name} provider needs a model: pass --model NAME (the name the server lists for it).`,
    );
  }
  return {
    preset: name,
    protocol: preset.protocol,
    baseURL,
    apiKey,
    apiKeyEnv: preset.apiKeyEnv,
    model,
    ...(preset.protocol === "openai" ? { api: choice.api ?? preset.api ?? "chat" } : {}),
  };
}

function resolveLocal(choice: ProviderChoice): ResolvedProvider | ConfigError {
  if (choice.baseURL !== undefined) {
    return new ConfigError(
      "--base-url does not apply to --provider local, which runs the model in this process.",
    );
  }
  const model = choice.model ?? DEFAULT_LOCAL_MODEL;
  return { preset: "local", protocol: "local", baseURL: "", apiKey: null, apiKeyEnv: null, model };
}

function isHttpURL(text: string): boolean {
  return URL.canParse(text) && ["http:", "https:"].includes(new URL(text).protocol);
}

/** A variable's value; an empty one counts as unset. */
function variable(env: ProviderChoice["env"], name: string | null): string | undefined {
  return name ? env[name] || undefined : undefined;
}

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}

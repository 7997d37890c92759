// What each provider is created with, from a resolved configuration. Kept apart from the
// providers themselves, so that the CLI, which picks one, loads only its SDK (see startProvider in setup.ts).

import type { AnthropicProviderOptions } from "./anthropic.js";
import type { OpenAIProviderOptions } from "./openai.js";
import type { ResolvedProvider } from "./presets.js";

export interface ProviderHooks {
  /** Hears, in one sentence each, every repair made to the transcript before a request. */
  onRepair?: (description: string) => void;
}

export function anthropicOptions(
  resolved: ResolvedProvider,
  hooks: ProviderHooks,
): AnthropicProviderOptions {
  return {
    // resolveProvider never lets an Anthropic preset through without its key.
    apiKey: resolved.apiKey ?? "",
    baseURL: resolved.baseURL,
    model: resolved.model,
    onRepair: hooks.onRepair,
  };
}

export function openAIOptions(
  resolved: ResolvedProvider,
  hooks: ProviderHooks,
): OpenAIProviderOptions {
  return {
    apiKey: resolved.apiKey,
    baseURL: resolved.baseURL,
    model: resolved.model,
    name: resolved.preset,
    apiKeyEnv: resolved.apiKeyEnv,
    onRepair: hooks.onRepair,
  };
}

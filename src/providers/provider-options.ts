// What each provider is created with, from a resolved configuration. Kept apart from the
// providers themselves, so that the CLI, which picks one, loads only its SDK (see startProvider in command-line/setup.ts).

import type { AnthropicProviderOptions } from "./anthropic.js";
import type { OpenAIProviderOptions } from "./openai.js";
import type { ResolvedProvider } from "./presets.js";
import type { ThinkingOptions } from "./thinking-options.js";

export interface ProviderHooks {
  /** Hears, in one sentence each, every repair made to the transcript before a request. */
  onRepair?: (description: string) => void;
  /** Hears what the user should know about the model as requests go (a deprecation), once each. */
  onNotice?: (sentence: string) => void;
}

/** What the user chose about the model beyond its name. */
export interface ModelSettings {
  thinking?: ThinkingOptions;
  /** --context-window, a settings file, or the window a resumed session was fitted into. */
  contextWindow?: number;
}

export function anthropicOptions(
  resolved: ResolvedProvider,
  hooks: ProviderHooks,
  { thinking = {}, contextWindow }: ModelSettings = {},
): AnthropicProviderOptions {
  return {
    // resolveProvider never lets an Anthropic preset through without its key.
    apiKey: resolved.apiKey ?? "",
    baseURL: resolved.baseURL,
    model: resolved.model,
    thinking,
    contextWindow,
    onRepair: hooks.onRepair,
    onNotice: hooks.onNotice,
  };
}

export function openAIOptions(
  resolved: ResolvedProvider,
  hooks: ProviderHooks,
  { thinking = {} }: ModelSettings = {},
): OpenAIProviderOptions {
  return {
    effort: thinking.effort,
    apiKey: resolved.apiKey,
    baseURL: resolved.baseURL,
    model: resolved.model,
    name: resolved.preset,
    apiKeyEnv: resolved.apiKeyEnv,
    onRepair: hooks.onRepair,
  };
}

// Builds the provider a resolved configuration names. Apart from presets.ts, which resolves the
// configuration without loading either SDK, so that the CLI can load this module (and the SDKs)
// while the rest of its start-up goes on.

import { ConfigError } from "../errors.js";
import { createAnthropicProvider } from "./anthropic.js";
import { createOpenAIProvider } from "./openai.js";
import type { ResolvedProvider } from "./presets.js";
import type { Provider } from "./provider.js";

export interface ProviderHooks {
  /** Hears, in one sentence each, every repair made to the transcript before a request. */
  onRepair?: (description: string) => void;
}

export function createProvider(resolved: ResolvedProvider, hooks: ProviderHooks = {}): Provider {
  switch (resolved.protocol) {
    case "anthropic":
      return createAnthropicProvider({
        // resolveProvider never lets an Anthropic preset through without its key.
        apiKey: resolved.apiKey ?? "",
        baseURL: resolved.baseURL,
        model: resolved.model,
        onRepair: hooks.onRepair,
      });
    case "openai":
      return createOpenAIProvider({
        apiKey: resolved.apiKey,
        baseURL: resolved.baseURL,
        model: resolved.model,
        name: resolved.preset,
        apiKeyEnv: resolved.apiKeyEnv,
        onRepair: hooks.onRepair,
      });
    case "local":
      throw new ConfigError(
        "A local model is loaded before it runs: create its provider with createLocalProvider.",
      );
  }
}

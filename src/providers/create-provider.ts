// Builds the provider a resolved configuration names, for library users: it loads both SDKs.
// The CLI instead loads only the one it needs (startProvider in command-line/setup.ts), while the rest of its
// start-up goes on; both take their options from provider-options.ts.

import { ConfigError } from "../core/errors.js";
import { createAnthropicProvider } from "./anthropic.js";
import { withImageRepair } from "./image-repair.js";
import { createOpenAIProvider } from "./openai.js";
import { createResponsesProvider } from "./openai-responses.js";
import type { ResolvedProvider } from "./presets.js";
import type { Provider } from "./provider.js";
import { anthropicOptions, openAIOptions, type ProviderHooks } from "./provider-options.js";

export type { ProviderHooks };

export function createProvider(resolved: ResolvedProvider, hooks: ProviderHooks = {}): Provider {
  return withImageRepair(protocolProvider(resolved, hooks), hooks.onRepair);
}

function protocolProvider(resolved: ResolvedProvider, hooks: ProviderHooks): Provider {
  switch (resolved.protocol) {
    case "anthropic":
      return createAnthropicProvider(anthropicOptions(resolved, hooks));
    case "openai":
      return resolved.api === "responses"
        ? createResponsesProvider(openAIOptions(resolved, hooks))
        : createOpenAIProvider(openAIOptions(resolved, hooks));
    case "local":
      throw new ConfigError(
        "A local model is loaded before it runs: create its provider with createLocalProvider.",
      );
  }
}

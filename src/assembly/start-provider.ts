// The provider a session runs on, started from its resolved configuration: the SDK of its
// protocol (or the local model engine), loaded only when it is the one used.

import type { Provider } from "../core/provider.js";
import { assumedFactsNotice, modelFacts } from "../providers/model-table.js";
import type { ResolvedProvider } from "../providers/presets.js";
import {
  anthropicOptions,
  type ModelSettings,
  openAIOptions,
  type ProviderHooks,
} from "../providers/provider-options.js";

/**
 * A hosted model the table does not know is told about once, after its first reply: its
 * window and price are assumed. Said before, it would stand in front of the one sentence of a
 * model the server does not know either.
 */
export function withAssumedFactsNotice<P extends Provider>(
  provider: P,
  resolved: ResolvedProvider,
  options: { contextWindow: number | undefined },
  notice: (sentence: string) => void,
): P {
  const hosted = resolved.apiKeyEnv !== null && resolved.protocol !== "local";
  if (!hosted || options.contextWindow !== undefined || modelFacts(provider.model)) {
    return provider;
  }
  let told = false;
  return {
    ...provider,
    async *stream(request) {
      const reply = yield* provider.stream(request);
      if (!told) notice(assumedFactsNotice(provider.model));
      told = true;
      return reply;
    },
  };
}

/**
 * The provider a resolved configuration names. Its SDK (or the local model engine) loads while
 * the rest of start-up goes on; a local model is found or downloaded, then loaded.
 */
export async function startProvider(
  resolved: ResolvedProvider,
  where: { env: NodeJS.ProcessEnv; cwd: string; progress: NodeJS.WritableStream },
  hooks: ProviderHooks,
  settings: ModelSettings,
): Promise<Provider & { device?: string; contextWindow?: number }> {
  if (resolved.protocol === "local") {
    const { startLocalProvider } = await import("../providers/local-start.js");
    const { onRepair } = hooks;
    return startLocalProvider({ reference: resolved.model, ...where, onRepair });
  }
  // Each SDK on its own: the one not used is not compiled before the first request.
  if (resolved.protocol === "anthropic") {
    const { createAnthropicProvider } = await import("../providers/anthropic.js");
    return createAnthropicProvider(anthropicOptions(resolved, hooks, settings));
  }
  if (resolved.api === "responses") {
    const { createResponsesProvider } = await import("../providers/openai-responses.js");
    return createResponsesProvider(openAIOptions(resolved, hooks, settings));
  }
  const { createOpenAIProvider } = await import("../providers/openai.js");
  return createOpenAIProvider(openAIOptions(resolved, hooks, settings));
}

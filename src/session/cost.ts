// Turns token usage into US dollars for the models whose prices are known (the model table in
// providers/model-table.ts). A model missing from the table has an unknown cost, never a
// guessed one.

import { inputTokensOf, type Usage } from "../core/messages.js";
import { modelFacts } from "../providers/model-table.js";

/**
 * Cost in US dollars of one request's usage, or null when the model's price is not known. A
 * price that depends on the prompt's length is chosen by this request's input.
 */
export function costOf(model: string, usage: Usage): number | null {
  const base = modelFacts(model)?.price;
  if (!base) return null;
  const long = base.longPrompt;
  const price = long && inputTokensOf(usage) > long.tokens ? long.price : base;
  const dollars =
    usage.input_tokens * price.input +
    usage.output_tokens * price.output +
    usage.cache_read_input_tokens * price.cacheRead +
    usage.cache_creation_input_tokens * price.cacheWrite;
  return dollars / 1_000_000;
}

// Turns token usage into US dollars for the models whose prices we know. Prices are per
// million tokens; a model missing from the table has an unknown cost, never a guessed one.

import type { Usage } from "./messages.js";

interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const anthropic = (input: number, output: number): Price => ({
  input,
  output,
  cacheRead: input * 0.1,
  cacheWrite: input * 1.25,
});
const openai = (input: number, output: number, cacheRead = input / 2): Price => ({
  input,
  output,
  cacheRead,
  cacheWrite: 0,
});

// Longest matching prefix wins, so "gpt-4o-mini" is not priced as "gpt-4o".
const PRICES: [prefix: string, price: Price][] = [
  ["claude-opus-4-5", anthropic(5, 25)],
  ["claude-opus-4", anthropic(15, 75)],
  ["claude-opus-4-6", anthropic(5, 25)],
  ["claude-sonnet-4", anthropic(3, 15)],
  ["claude-3-7-sonnet", anthropic(3, 15)],
  ["claude-3-5-sonnet", anthropic(3, 15)],
  ["claude-haiku-4-5", anthropic(1, 5)],
  ["claude-3-5-haiku", anthropic(0.8, 4)],
  ["gpt-4o-mini", openai(0.15, 0.6)],
  ["gpt-4o", openai(2.5, 10)],
  ["gpt-4.1-nano", openai(0.1, 0.4, 0.025)],
  ["gpt-4.1-mini", openai(0.4, 1.6, 0.1)],
  ["gpt-4.1", openai(2, 8, 0.5)],
  ["gpt-5-mini", openai(0.25, 2, 0.025)],
  // https://developers.openai.com/api/docs/models/gpt-6.2-sol and .../gpt-6.1-sol, .../gpt-6-sol:
  // below 272K input tokens (a longer request costs twice as much for input, 1.5 times for output).
  ["gpt-6.2-sol", { ...openai(2, 10, 0.1), cacheWrite: 2.5 }],
  ["gpt-6.1-sol", { ...openai(2, 10, 0.1), cacheWrite: 2.5 }],
  ["gpt-6-sol", { ...openai(2, 10, 0.2), cacheWrite: 2.5 }],
  ["gpt-5", openai(1.25, 10, 0.125)],
  ["o4-mini", openai(1.1, 4.4, 0.275)],
  ["deepseek-chat", openai(0.27, 1.1, 0.07)],
  ["deepseek-reasoner", openai(0.55, 2.19, 0.14)],
];

export function priceOf(model: string): Price | undefined {
  const name = model.includes("/") ? (model.split("/").at(-1) ?? model) : model;
  let best: [string, Price] | undefined;
  for (const entry of PRICES) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}

/** Cost in US dollars, or null when the model's price is not known. */
export function costOf(model: string, usage: Usage): number | null {
  const price = priceOf(model);
  if (!price) return null;
  const dollars =
    usage.input_tokens * price.input +
    usage.output_tokens * price.output +
    usage.cache_read_input_tokens * price.cacheRead +
    usage.cache_creation_input_tokens * price.cacheWrite;
  return dollars / 1_000_000;
}

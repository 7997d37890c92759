// How many tokens the model in use can read at once. Known models come from a table; anything
// else gets a default until the user says (--context-window, settings) or the API tells us.

/** Longest matching prefix wins. Sizes are the models' full windows, input and output together. */
const KNOWN_WINDOWS: [prefix: string, tokens: number][] = [
  ["claude-", 200_000],
  ["gpt-5", 400_000],
  // https://developers.openai.com/api/docs/models/gpt-6.2-sol (and gpt-6.1-sol, gpt-6-sol)
  ["gpt-6.2-sol", 1_050_000],
  ["gpt-6.1-sol", 1_050_000],
  ["gpt-6-sol", 1_050_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
  ["deepseek-chat", 128_000],
  ["deepseek-reasoner", 128_000],
];

/** For a model we know nothing about: what most current models offer at least. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

export function contextWindowFor(model: string): number | null {
  const name = model.toLowerCase().replace(/^.*\//, "");
  let best: [string, number] | undefined;
  for (const entry of KNOWN_WINDOWS) {
    if (name.startsWith(entry[0]) && entry[0].length > (best?.[0].length ?? 0)) best = entry;
  }
  return best?.[1] ?? null;
}

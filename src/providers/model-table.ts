// What agentloop knows about the models people use, in one table: how much they read and write
// at once, what they cost, and how they think. Figures are from each provider's model pages as
// of December 2026 (the `source` of each row); a model missing here gets defaults, and the user
// is told once which figures were assumed.

/** US dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
  /** A 5-minute prompt-cache write (Anthropic); 0 where writes cost nothing extra. */
  cacheWrite: number;
  cacheRead: number;
  /** A higher rate for requests whose input is over `tokens` (Claude Haiku 5.5). */
  longPrompt?: { tokens: number; price: Omit<Price, "longPrompt"> };
}

/**
 * How a model thinks when a request says nothing about it, and what turns thinking off:
 * - `adaptive`: thinks by default; `thinking: {type: "disabled"}` turns it off.
 * - `between_tools`: thinks by default and rejects `disabled`; the lowest setting is
 *   `between_tools`, which still writes short progress notes between tool calls (Sonnet 5.5).
 * - `always`: thinks by default and cannot be turned off (Opus 5.5, Fable).
 * - `reasoning`: an OpenAI-compatible model that reasons by default (reasoning_content).
 * - `off`: does not think unless asked with a token budget, which agentloop does not set.
 */
export type ThinkingStyle = "adaptive" | "between_tools" | "always" | "reasoning" | "off";

export interface ModelFacts {
  /** Input and output together, in tokens. */
  contextWindow: number;
  /** The most tokens one reply may have. */
  maxOutput: number;
  /** Null where the provider publishes no price we can apply. */
  price: Price | null;
  thinking: ThinkingStyle;
  /** Takes an effort level (Anthropic `output_config.effort`). */
  effort: boolean;
  /** Where the figures came from. */
  source: string;
  /** False for a model that reads text only: images reach it as one line each (docs/images.md). */
  images?: false;
}

const claudePage = (page: string) => `https://platform.claude.com/docs/en/models/${page}/overview`;
const claudeLegacy = "https://platform.claude.com/docs/en/about-claude/models/overview";
const deepseekPage = "https://api-docs.deepseek.com/quick_start/pricing";
const openaiPricing = "https://developers.openai.com/api/docs/pricing";

/** An Anthropic price: cache writes at 1.25 times input, reads as the model page says. */
const anthropic = (input: number, output: number, cacheRead = input / 10): Price => ({
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead,
});
const openai = (input: number, output: number, cacheRead = input / 2): Price => ({
  input,
  output,
  cacheWrite: 0,
  cacheRead,
});

const claude5 = (page: string, thinking: ThinkingStyle, price: Price): ModelFacts => ({
  contextWindow: 1_000_000,
  maxOutput: 128_000,
  price,
  thinking,
  effort: true,
  source: claudePage(page),
});
const claude4 = (maxOutput: number, price: Price): ModelFacts => ({
  contextWindow: 200_000,
  maxOutput,
  price,
  thinking: "off",
  effort: false,
  source: claudeLegacy,
});
const openaiModel = (
  contextWindow: number,
  maxOutput: number,
  price: Price,
  thinking: ThinkingStyle = "off",
): ModelFacts => ({
  contextWindow,
  maxOutput,
  price,
  thinking,
  effort: false,
  source: openaiPricing,
});
/**
 * GPT-6 Sol and its upgrades: $2 in, $10 out, $2.50 per cache write, and a request over 272K
 * input tokens at twice the input and one and a half times the output price (the model pages
 * at developers.openai.com/api/docs/models/gpt-6.2-sol, gpt-6.1-sol, gpt-6-sol).
 */
function gpt6(cacheRead: number): ModelFacts {
  const base = { ...openai(2, 10, cacheRead), cacheWrite: 2.5 };
  const long = { input: 4, output: 15, cacheRead: cacheRead * 2, cacheWrite: 5 };
  return {
    ...openaiModel(1_050_000, 128_000, { ...base, longPrompt: { tokens: 272_000, price: long } }),
    thinking: "reasoning",
    effort: true,
    source: "https://developers.openai.com/api/docs/models/gpt-6.2-sol",
  };
}

// DeepSeek bills peak and off-peak hours; the peak price is used, so that --max-cost stops
// early rather than late.
// DeepSeek's API takes text only; its web app sees images, its API does not (as of August 2026,
// github.com/esengine/DeepSeek-Reasonix/issues/4820).
const deepseek = (price: Price): ModelFacts => ({
  contextWindow: 1_000_000,
  maxOutput: 384_000,
  price,
  thinking: "reasoning",
  effort: false,
  source: deepseekPage,
  images: false,
});

/** Model names by prefix; the longest matching prefix wins ("claude-sonnet-5-5" over "claude-sonnet-5"). */
const MODELS: [prefix: string, facts: ModelFacts][] = [
  // Claude Sonnet 5.5's page gives a cache read of $0.20; its migration guide says $0.10. The
  // model page is the one kept here, so a cost is never under-counted.
  ["claude-sonnet-5-5", claude5("sonnet-5-5", "between_tools", anthropic(2, 10, 0.2))],
  ["claude-sonnet-5", claude5("sonnet-5", "adaptive", anthropic(2, 10, 0.2))],
  ["claude-opus-5-5", claude5("opus-5-5", "always", anthropic(4, 20))],
  ["claude-opus-5", claude5("opus-5", "adaptive", anthropic(5, 25))],
  ["claude-fable-5-1", claude5("fable-5-1", "always", anthropic(10, 50))],
  ["claude-fable-5", claude5("fable-5", "always", anthropic(10, 50))],
  [
    "claude-haiku-5-5",
    claude5("haiku-5-5", "adaptive", {
      ...anthropic(0.1, 0.5),
      longPrompt: { tokens: 100_000, price: anthropic(0.5, 2.5) },
    }),
  ],
  ["claude-haiku-4-5", claude4(64_000, anthropic(1, 5))],
  ["claude-sonnet-4", claude4(64_000, anthropic(3, 15))],
  ["claude-opus-4-6", claude4(64_000, anthropic(5, 25))],
  ["claude-opus-4-5", claude4(64_000, anthropic(5, 25))],
  ["claude-opus-4", claude4(32_000, anthropic(15, 75))],
  ["claude-3-7-sonnet", claude4(64_000, anthropic(3, 15))],
  ["claude-3-5-haiku", claude4(8_192, anthropic(0.8, 4))],
  ["deepseek-flash", deepseek(openai(0.3, 1.2, 0.006))],
  // Retired names, now served by deepseek-flash at its price.
  ["deepseek-v4-flash", deepseek(openai(0.3, 1.2, 0.006))],
  ["deepseek-v4-pro", deepseek(openai(1.32, 3.96, 0.044))],
  ["gpt-4o-mini", openaiModel(128_000, 16_384, openai(0.15, 0.6))],
  ["gpt-4o", openaiModel(128_000, 16_384, openai(2.5, 10))],
  ["gpt-4.1-nano", openaiModel(1_047_576, 32_768, openai(0.1, 0.4, 0.025))],
  ["gpt-4.1-mini", openaiModel(1_047_576, 32_768, openai(0.4, 1.6, 0.1))],
  ["gpt-4.1", openaiModel(1_047_576, 32_768, openai(2, 8, 0.5))],
  ["gpt-6.2-sol", gpt6(0.1)],
  ["gpt-6.1-sol", gpt6(0.1)],
  ["gpt-6-sol", gpt6(0.2)],
  ["gpt-5-mini", openaiModel(400_000, 128_000, openai(0.25, 2, 0.025), "reasoning")],
  ["gpt-5", openaiModel(400_000, 128_000, openai(1.25, 10, 0.125), "reasoning")],
  ["o4-mini", openaiModel(200_000, 100_000, openai(1.1, 4.4, 0.275), "reasoning")],
  ["o3", openaiModel(200_000, 100_000, openai(2, 8, 0.5), "reasoning")],
];

/** The largest reply asked for from a model the table does not know. */
export const DEFAULT_MAX_OUTPUT = 32_000;

/** The window assumed for a model the table does not know: what most current models offer at least. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The names the table knows, as its rows spell them: the choices a model picker offers. */
export function tableModelNames(): string[] {
  return MODELS.map(([prefix]) => prefix);
}

/** What the table knows about `model` (a provider prefix such as "anthropic/" is ignored). */
export function modelFacts(model: string): ModelFacts | null {
  const name = model.toLowerCase().replace(/^.*\//, "");
  let best: [string, ModelFacts] | undefined;
  for (const entry of MODELS) {
    if (name.startsWith(entry[0]) && entry[0].length > (best?.[0].length ?? 0)) best = entry;
  }
  return best?.[1] ?? null;
}

/** The one line a user gets about a model the table does not know. */
export function assumedFactsNotice(model: string): string {
  const window = DEFAULT_CONTEXT_WINDOW.toLocaleString("en-US");
  return `${model} is not in agentloop's model table: its context window is taken as ${window} tokens (--context-window sets it) and its cost is unknown, so --max-cost cannot apply.`;
}

/** Whether images are sent to `model`: yes unless the table says it reads text only. */
export function seesImages(model: string): boolean {
  return modelFacts(model)?.images !== false;
}

import { describe, expect, it } from "vitest";
import { costOf } from "../src/session/cost.js";

const usage = {
  input_tokens: 1_000_000,
  output_tokens: 100_000,
  cache_read_input_tokens: 2_000_000,
  cache_creation_input_tokens: 0,
};

describe("cost", () => {
  it("prices input, output and cache reads for a known model", () => {
    expect(costOf("claude-sonnet-4-5-20250929", usage)).toBeCloseTo(3 + 1.5 + 0.6, 6);
  });

  it("prefers the longest matching name", () => {
    expect(costOf("gpt-4o-mini", { ...usage, cache_read_input_tokens: 0 })).toBeCloseTo(0.21, 6);
  });

  it("reads a vendor-prefixed name such as OpenRouter's", () => {
    expect(costOf("openai/gpt-4o", { ...usage, cache_read_input_tokens: 0 })).toBeCloseTo(3.5, 6);
  });

  it("prices Claude Sonnet 5.5 as its model page does, cache writes included", () => {
    const written = { ...usage, cache_creation_input_tokens: 1_000_000 };
    // $2 in, $10 out, $0.20 cache read, $2.50 cache write per million tokens.
    expect(costOf("claude-sonnet-5-5", written)).toBeCloseTo(2 + 1 + 0.4 + 2.5, 6);
  });

  it("prices a request over Claude Haiku 5.5's 100,000-token tier at the long-prompt rate", () => {
    const short = { ...usage, input_tokens: 50_000, cache_read_input_tokens: 0 };
    const long = { ...short, input_tokens: 150_000 };
    expect(costOf("claude-haiku-5-5", short)).toBeCloseTo(0.05 * 0.1 + 0.1 * 0.5, 6);
    expect(costOf("claude-haiku-5-5", long)).toBeCloseTo(0.15 * 0.5 + 0.1 * 2.5, 6);
  });

  it("says unknown rather than guessing for a model it has no price for", () => {
    expect(costOf("qwen2.5-coder:7b", usage)).toBeNull();
  });
});

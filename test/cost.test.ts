import { describe, expect, it } from "vitest";
import { costOf } from "../src/cost.js";

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

  it("says unknown rather than guessing for a model it has no price for", () => {
    expect(costOf("qwen2.5-coder:7b", usage)).toBeNull();
  });
});

// What agentloop knows about today's models, and what it assumes about the others.

import { describe, expect, it } from "vitest";
import { contextWindowOf } from "../src/compaction/settings.js";
import { assumedFactsNotice, modelFacts } from "../src/providers/model-table.js";

describe("the model table", () => {
  it("gives Claude Sonnet 5.5 its 1M window and 128K output, thinking by default", () => {
    expect(modelFacts("claude-sonnet-5-5")).toMatchObject({
      contextWindow: 1_000_000,
      maxOutput: 128_000,
      thinking: "between_tools",
      effort: true,
    });
    const choice = { contextWindow: null, auto: true };
    expect(contextWindowOf(choice, { model: "claude-sonnet-5-5" })).toBe(1_000_000);
  });

  it("matches the longest prefix, and a provider's prefix before the name", () => {
    expect(modelFacts("claude-sonnet-5")?.thinking).toBe("adaptive");
    expect(modelFacts("claude-opus-5-5-20261001")?.thinking).toBe("always");
    expect(modelFacts("openrouter/deepseek-v4-pro")?.contextWindow).toBe(1_000_000);
    expect(modelFacts("gpt-6.2-sol")).toMatchObject({
      contextWindow: 1_050_000,
      maxOutput: 128_000,
    });
  });

  it("knows nothing of a model it has no row for, and says once what it assumes", () => {
    expect(modelFacts("qwen2.5-coder:7b")).toBeNull();
    const choice = { contextWindow: null, auto: true };
    expect(contextWindowOf(choice, { model: "qwen2.5-coder:7b" })).toBe(128_000);
    expect(assumedFactsNotice("claude-future-9")).toBe(
      "claude-future-9 is not in agentloop's model table: its context window is taken as 128,000 tokens (--context-window sets it) and its cost is unknown, so --max-cost cannot apply.",
    );
  });
});

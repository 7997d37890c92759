// The live cost a batch reads from an agent's stream-json lines, before its result line says the
// final word: it counts what the session counts (src/session/agent-session.ts), so
// --max-total-cost sees a task's searches and its goal judge's model while the task runs.

import { describe, expect, it } from "vitest";
import { emptyFacts, takeLine } from "../src/batch/attempt-outcome.js";
import type { LoopEvent } from "../src/core/events.js";
import { emptyUsage, type Usage } from "../src/core/messages.js";
import { costOf } from "../src/session/cost.js";

const MODEL = "claude-haiku-4-5";
const usage: Usage = { ...emptyUsage(), input_tokens: 10_000, output_tokens: 1_000 };
const reply: LoopEvent = {
  type: "assistant_message",
  turn: 1,
  message: { role: "assistant", content: [{ type: "text", text: "Done." }] },
  stopReason: "end_turn",
  usage,
  durationMs: 5,
};
const search: LoopEvent = {
  type: "part",
  part: "web",
  name: "search",
  line: 'searched the web for "x": 1 result, $0.01',
  dollars: 0.01,
};
const judged: LoopEvent = {
  type: "part",
  part: "goal",
  name: "goal_check",
  line: "goal check 1: met",
  usage,
  model: "claude-sonnet-4-5",
};

describe("a batch attempt's live cost", () => {
  it("adds a search's price to the tokens' price, as the session's cost does", () => {
    const facts = emptyFacts();
    takeLine(JSON.stringify(reply), facts, MODEL);
    const cost = takeLine(JSON.stringify(search), facts, MODEL);
    expect(cost).toBeCloseTo((costOf(MODEL, usage) as number) + 0.01, 10);
    // A search is no request: the turns and tokens are the reply's alone.
    expect([facts.turns, facts.usage.input_tokens]).toEqual([1, 10_000]);
  });

  it("prices a part's own request at the model that answered it", () => {
    const facts = emptyFacts();
    const cost = takeLine(JSON.stringify(judged), facts, MODEL);
    expect(cost).toBeCloseTo(costOf("claude-sonnet-4-5", usage) as number, 10);
    expect(cost).not.toBeCloseTo(costOf(MODEL, usage) as number, 10);
  });

  it("ignores what costs nothing and what is not a line of JSON", () => {
    const facts = emptyFacts();
    expect(takeLine('{"type":"turn_start","turn":1}', facts, MODEL)).toBeNull();
    expect(takeLine("not json", facts, MODEL)).toBeNull();
    expect(facts.cost).toBeNull();
  });
});

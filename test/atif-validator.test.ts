// The ATIF rules the export is held to find what breaks each of them: a validator that passes
// everything would let any export through.

import { describe, expect, it } from "vitest";
import { atifProblems } from "./support/atif-validator.js";

function valid() {
  return {
    schema_version: "ATIF-v1.7",
    session_id: "s1",
    trajectory_id: "s1",
    agent: { name: "agentloop", version: "0.1.0" },
    steps: [
      { step_id: 1, source: "user", message: "list files", timestamp: "2026-12-07T03:00:00.000Z" },
      {
        step_id: 2,
        source: "agent",
        message: "",
        tool_calls: [{ tool_call_id: "c1", function_name: "bash", arguments: { command: "ls" } }],
        observation: {
          results: [
            { source_call_id: "c1", content: "a.txt" },
            { source_call_id: "c1", subagent_trajectory_ref: [{ trajectory_id: "child" }] },
          ],
        },
        metrics: { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 4, cost_usd: 0.5 },
      },
    ],
    final_metrics: {
      total_prompt_tokens: 10,
      total_completion_tokens: 5,
      total_cached_tokens: 4,
      total_cost_usd: 0.5,
      total_steps: 2,
    },
    subagent_trajectories: [
      {
        schema_version: "ATIF-v1.7",
        trajectory_id: "child",
        agent: { name: "agentloop", version: "0.1.0" },
        steps: [{ step_id: 1, source: "user", message: "count" }],
      },
    ],
  };
}

/** The object at `path` inside `value`, to change in place. */
function at(value: unknown, path: (string | number)[]): Record<string, unknown> {
  return path.reduce<unknown>(
    (node, key) => (node as Record<string | number, unknown>)[key],
    value,
  ) as Record<string, unknown>;
}

describe("the ATIF rules", () => {
  it("find nothing wrong with a valid trajectory", () => {
    expect(atifProblems(valid())).toEqual([]);
  });

  // What to change (a field set to undefined is left out), where, and the problem it makes.
  const breakages: [string, (string | number)[], Record<string, unknown>, RegExp][] = [
    ["an unknown version", [], { schema_version: "ATIF-v9" }, /schema_version/],
    ["no agent version", ["agent"], { version: undefined }, /agent\.version/],
    ["step ids out of order", ["steps", 1], { step_id: 3 }, /step_id: 3, expected 2/],
    ["an unknown source", ["steps", 0], { source: "tool" }, /source/],
    ["a missing message", ["steps", 0], { message: undefined }, /message/],
    ["a timestamp that is not ISO 8601", ["steps", 0], { timestamp: "yesterday" }, /timestamp/],
    ["metrics on a user step", ["steps", 0], { metrics: {} }, /only an agent step/],
    [
      "arguments that are not an object",
      ["steps", 1, "tool_calls", 0],
      { arguments: "ls" },
      /arguments/,
    ],
    [
      "a result naming no call of its step",
      ["steps", 1, "observation", "results", 0],
      { source_call_id: "c9" },
      /c9/,
    ],
    ["a ref that resolves to nothing", [], { subagent_trajectories: [] }, /no embedded/],
    [
      "more cached tokens than prompt tokens",
      ["steps", 1, "metrics"],
      { cached_tokens: 11 },
      /cached_tokens/,
    ],
    [
      "totals that are not the sums",
      ["final_metrics"],
      { total_prompt_tokens: 11 },
      /steps sum to 10/,
    ],
    ["an unknown field", [], { score: 1 }, /score: not a field/],
  ];
  it.each(breakages)("find %s", (_name, path, change, problem) => {
    const trajectory = valid();
    Object.assign(at(trajectory, path), change);
    expect(atifProblems(trajectory).join("\n")).toMatch(problem);
  });
});

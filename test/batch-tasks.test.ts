// The task file and the shards: what a batch runs, checked before it runs anything.

import { describe, expect, it } from "vitest";
import { shardFrom, tasksOfShard } from "../src/batch/shard.js";
import { parseTasks } from "../src/batch/task.js";

const line = (value: object) => JSON.stringify(value);

describe("a task file", () => {
  it("gives the tasks of its lines, blank lines aside, every field carried", () => {
    const full = {
      id: "django__django-1",
      prompt: "fix it",
      repo: "https://example.invalid/repo.git",
      base_commit: "abc123",
      setup: "pip install -e .",
      timeout_s: 600,
      max_turns: 50,
      max_cost_usd: 1.5,
      model: "claude-sonnet-4-5",
      env: { PYTHONHASHSEED: "0" },
      metadata: { instance_id: "django__django-1", difficulty: [1, 2] },
    };
    const tasks = parseTasks(`${line(full)}\n\n${line({ id: "b", prompt: "p" })}\n`, "t.jsonl");
    expect(tasks).toEqual([full, { id: "b", prompt: "p" }]);
  });

  it.each([
    ["not JSON", "{id: 1}", "line 1: not JSON"],
    ["not an object", "[1]", "line 1: must be a JSON object"],
    ["without an id", line({ prompt: "p" }), 'line 1: "id" is missing'],
    ["with an id that is a path", line({ id: "../x", prompt: "p" }), 'line 1: "id" must be'],
    ["with an id that is hidden", line({ id: ".git", prompt: "p" }), 'line 1: "id" must be'],
    [
      "with an empty prompt",
      line({ id: "a", prompt: " " }),
      'line 1: "prompt" must be a non-empty string',
    ],
    [
      "with a zero timeout",
      line({ id: "a", prompt: "p", timeout_s: 0 }),
      '"timeout_s" must be a number above 0',
    ],
    [
      "with a fractional turn limit",
      line({ id: "a", prompt: "p", max_turns: 1.5 }),
      '"max_turns" must be a whole number',
    ],
    [
      "with a numeric env value",
      line({ id: "a", prompt: "p", env: { A: 1 } }),
      '"env" must be an object of string values',
    ],
    [
      "with an unknown field",
      line({ id: "a", prompt: "p", instance_id: "x" }),
      'unknown field "instance_id" (put extra data under "metadata")',
    ],
  ])("rejects a line %s, naming the line", (_name, text, message) => {
    expect(() => parseTasks(text, "t.jsonl")).toThrow(message);
  });

  it("lists every mistake at once, and a repeated id with the line of its first use", () => {
    const text = [line({ id: "a", prompt: "p" }), "oops", line({ id: "a", prompt: "q" })].join(
      "\n",
    );
    expect(() => parseTasks(text, "t.jsonl")).toThrow(
      /t\.jsonl has mistakes, nothing was run:\n {2}line 2: not JSON.*\n {2}line 3: id "a" is already used on line 1/,
    );
  });

  it("refuses a file without tasks", () => {
    expect(() => parseTasks("\n\n", "t.jsonl")).toThrow("t.jsonl has no tasks.");
  });
});

describe("shards", () => {
  const tasks = ["a", "b", "c", "d", "e", "f", "g"];

  it("are disjoint and together the whole file", () => {
    const shards = [0, 1, 2].map((index) => tasksOfShard(tasks, { index, count: 3 }));
    expect(shards).toEqual([
      ["a", "d", "g"],
      ["b", "e"],
      ["c", "f"],
    ]);
    expect(shards.flat().sort()).toEqual(tasks);
  });

  it("take the index from I/N, or from JOB_COMPLETION_INDEX when only N is given", () => {
    expect(shardFrom("1/4", {})).toEqual({ index: 1, count: 4 });
    expect(shardFrom("4", { JOB_COMPLETION_INDEX: "3" })).toEqual({ index: 3, count: 4 });
  });

  it.each([
    ["4/4", {}, "from 0 to 3"],
    ["x/2", {}, "from 0 to 1"],
    ["0/0", {}, "N a whole number of at least 1"],
    ["4", {}, "JOB_COMPLETION_INDEX, which is not set"],
  ])("refuse --shard %s with a sentence", (text, env, message) => {
    expect(() => shardFrom(text, env)).toThrow(message);
  });
});

// The export's edges that a recorded run does not reach: a subagent whose transcript is gone.

import { describe, expect, it } from "vitest";
import { trajectoryOf } from "../src/export/atif.js";
import { parseSession } from "../src/session/session-file.js";
import { atifProblems } from "./support/atif-validator.js";

const at = "2026-12-07T03:00:00.000Z";
const lines = [
  {
    type: "session",
    version: 1,
    id: "s1",
    cwd: "/w",
    model: "claude-sonnet-5-5",
    provider: "anthropic",
    startedAt: at,
  },
  { type: "message", at, message: { role: "user", content: "look around" } },
  {
    type: "message",
    at,
    message: {
      role: "assistant",
      content: [{ type: "tool_use", id: "a1", name: "agent", input: { prompt: "look" } }],
    },
    usage: {
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
  },
  {
    type: "subagent",
    at,
    tool_use_id: "a1",
    agent_type: "general",
    agent_id: "ab12",
    transcript: "s1/gone.jsonl",
    reason: "end_turn",
  },
  {
    type: "message",
    at,
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "a1", content: "nothing" }],
    },
  },
];

describe("the ATIF export", () => {
  it("leaves out a subagent whose transcript is gone, points at nothing, and says so in notes", () => {
    const contents = parseSession(`${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const trajectory = trajectoryOf(contents, {
      path: "/nowhere/s1.jsonl",
      version: "0.1.0",
      trajectoryId: "s1",
    });
    expect(atifProblems(trajectory)).toEqual([]);
    expect(trajectory.subagent_trajectories).toBeUndefined();
    expect(trajectory.steps[1]?.observation?.results).toEqual([
      { source_call_id: "a1", content: "nothing" },
    ]);
    expect(trajectory.notes).toBe("The subagent transcript s1/gone.jsonl could not be read.");
  });
});

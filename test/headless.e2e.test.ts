// The headless contract: json and stream-json outputs checked against the JSON schemas in
// schemas/, and the exit code and subtype for every way a run can end.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, runCli, startFakeModel } from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { validEvent, validResult } from "./support/schemas.js";

function expectValid(validate: typeof validResult, value: unknown) {
  const ok = validate(value);
  expect(ok, JSON.stringify({ value, errors: validate.errors }, null, 1)).toBe(true);
}

const bash = (id: string, command: string) => toolUse(id, "bash", { command });

describe("headless runs", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function headless(turns: FakeTurn[], args: string[], format = "json") {
    model.script(turns);
    const sandbox = freshSandbox();
    const run = await runCli(["--output-format", format, ...args], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    model.script([]);
    return run;
  }

  it.each([
    ["success", [reply(bash("a", "echo hi")), reply(text("done"))], [], 0, "success", "end_turn"],
    [
      "a refusal",
      [{ kind: "reply", content: [text("no")], stopReason: "refusal" }],
      [],
      1,
      "error_during_execution",
      "refusal",
    ],
    [
      "an API that keeps failing",
      [{ kind: "http_error", status: 400, errorType: "invalid_request_error", message: "bad" }],
      [],
      1,
      "error_during_execution",
      "error",
    ],
    [
      "the turn limit",
      [reply(bash("a", "true")), reply(bash("b", "true"))],
      ["--max-turns", "1"],
      3,
      "error_max_turns",
      "max_turns",
    ],
    [
      "the cost limit",
      [reply(bash("a", "true")), reply(text("never sent"))],
      ["--max-cost", "0.0000001"],
      3,
      "error_max_cost",
      "max_cost",
    ],
    [
      "the repeated-call guard",
      Array.from({ length: 6 }, () => reply(bash("same", "echo same"))),
      [],
      3,
      "error_repeated_call",
      "repeated_call",
    ],
  ] as [string, FakeTurn[], string[], number, string, string][])(
    "ends with %s: exit code, subtype and stop_reason match, and the object fits the schema",
    async (_name, turns, args, code, subtype, stopReason) => {
      const run = await headless(turns, [...args, "the task"]);
      expect(run.code).toBe(code);
      const result = JSON.parse(run.stdout);
      expectValid(validResult, result);
      expect(result).toMatchObject({ subtype, stop_reason: stopReason, is_error: code !== 0 });
    },
  );

  it("names the kind of error, so a batch can tell a flaky API from a broken request", async () => {
    const refused: FakeTurn = {
      kind: "http_error",
      status: 400,
      errorType: "invalid_request_error",
      message: "bad",
    };
    const run = await headless([refused], ["the task"]);
    const result = JSON.parse(run.stdout);
    expectValid(validResult, result);
    expect(result).toMatchObject({ stop_reason: "error", error_kind: "invalid_request" });
  });

  it("prints only schema-valid events in stream-json, ending with a valid result", async () => {
    const run = await headless(
      [
        reply(text("Looking."), bash("s1", "printf 'a\\nb\\n'"), bash("s2", "exit 3")),
        { kind: "reply", content: [text("Half an ans")], stopReason: "max_tokens" },
        reply(text("wer.")),
      ],
      ["stream please"],
      "stream-json",
    );
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const result = lines.pop();
    for (const event of lines) expectValid(validEvent, event);
    expectValid(validResult, result);
    expect(result.result).toBe("Half an answer.");
    expect(lines.map((line) => line.type)).toContain("continuation");
  });

  it("streams a thinking model's thinking as thinking_delta events, and keeps it out of the answer", async () => {
    const think = (value: string) => ({ type: "thinking" as const, thinking: value });
    const turns: FakeTurn[] = [
      reply(think("I should look first."), bash("t1", "echo hi")),
      reply(think("It printed hi."), text("It said hi.")),
    ];
    const streamed = await headless(turns, ["--model", "claude-sonnet-5", "go"], "stream-json");
    expect(streamed.code, streamed.stdout.slice(-1500)).toBe(0);
    const events = streamed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const result = events.pop();
    for (const event of events) expectValid(validEvent, event);
    const thought = events.filter((event) => event.type === "thinking_delta").map((e) => e.text);
    expect(thought.join("")).toBe("I should look first.It printed hi.");
    expect(result).toMatchObject({ result: "It said hi.", total_cost_usd: expect.any(Number) });
    const printed = await headless(turns, ["--model", "claude-sonnet-5", "-p", "go"], "text");
    expect(printed).toMatchObject({ code: 0, stdout: "It said hi.\n" });
  });
});

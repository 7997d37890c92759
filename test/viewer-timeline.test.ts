import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseSession } from "../src/session.js";
import { buildTimeline } from "../src/viewer/timeline.js";

const fixture = readFileSync(new URL("./fixtures/viewer-session.jsonl", import.meta.url), "utf8");
const header = JSON.stringify({
  type: "session",
  version: 1,
  id: "s1",
  cwd: "/tmp/project",
  model: "m",
  provider: "anthropic",
  startedAt: "2026-11-28T09:00:00.000Z",
});
const at = "2026-11-28T09:00:01.000Z";
const prompt = (text: string) =>
  JSON.stringify({ type: "message", at, message: { role: "user", content: text } });
const reply = (turn: number, text: string) =>
  JSON.stringify({
    type: "message",
    at,
    turn,
    stopReason: "end_turn",
    message: { role: "assistant", content: [{ type: "text", text }] },
  });
const stop = (reason: string, detail: string) =>
  JSON.stringify({ type: "stop", at, reason, detail });
const timelineOf = (...lines: string[]) => buildTimeline(parseSession(`${lines.join("\n")}\n`));

describe("the viewer's timeline", () => {
  it("makes one step per request, each sending every message before its reply", () => {
    const { steps, messages } = buildTimeline(parseSession(fixture));
    expect(messages).toHaveLength(6);
    expect(steps.map((step) => step.request)).toEqual([1, 2, 3]);
    expect(steps.map((step) => step.sentCount)).toEqual([1, 3, 5]);
    expect(steps.map((step) => step.reply?.index)).toEqual([1, 3, 5]);
  });

  it("shows each request's reply and tool results with that request", () => {
    const { steps, items } = buildTimeline(parseSession(fixture));
    expect(steps.map((step) => step.shownCount)).toEqual([3, 5, 7]);
    expect(items.at(-1)).toEqual({
      kind: "stop",
      reason: "end_turn",
      detail: "The model finished its answer.",
    });
  });

  it("gives each step its turn, stop reason, usage, duration and transition reason", () => {
    const [first, , last] = buildTimeline(parseSession(fixture)).steps;
    expect(first?.reply).toMatchObject({
      turn: 1,
      stopReason: "tool_use",
      durationMs: 2783.4,
      usage: { input_tokens: 1412, output_tokens: 61 },
    });
    expect(first?.transitionReason).toBe("tool_result");
    expect(first?.stop).toBeNull();
    expect(last?.reply).toMatchObject({ turn: 3, stopReason: "end_turn" });
    expect(last?.transitionReason).toBeNull();
    expect(last?.stop).toEqual({ reason: "end_turn", detail: "The model finished its answer." });
  });

  it("shows a later prompt with the request it starts, not with the previous answer", () => {
    const { steps } = timelineOf(
      header,
      prompt("first question"),
      reply(1, "first answer"),
      stop("end_turn", "The model finished its answer."),
      prompt("second question"),
      reply(2, "second answer"),
    );
    expect(steps.map((step) => [step.sentCount, step.shownCount])).toEqual([
      [1, 3],
      [3, 5],
    ]);
  });

  it("adds a step without a reply when the session ends while a request is pending", () => {
    const { steps } = timelineOf(
      header,
      prompt("question"),
      stop("error", "The API could not be reached."),
    );
    expect(steps).toEqual([
      {
        request: 1,
        sentCount: 1,
        shownCount: 2,
        reply: null,
        transitionReason: null,
        stop: { reason: "error", detail: "The API could not be reached." },
      },
    ]);
  });

  it("shows a transcript repair with the request it changed", () => {
    const repair = JSON.stringify({ type: "repair", at, description: "answered toolu_1" });
    const { steps, items } = timelineOf(header, prompt("q"), reply(1, "a"), repair, prompt("q2"));
    expect(items[2]).toEqual({ kind: "repair", description: "answered toolu_1" });
    expect(
      steps.map((step) => [step.sentCount, step.shownCount, step.reply?.index ?? null]),
    ).toEqual([
      [1, 2, 1],
      [3, 4, null],
    ]);
  });

  it("keeps what could be read from a damaged file and reports the rest by line", () => {
    const lines = fixture.trimEnd().split("\n");
    const damaged = [
      ...lines.slice(0, 3),
      "{not json",
      ...lines.slice(3, 6),
      lines[6]?.slice(0, 40),
    ];
    const { messages, steps, problems } = buildTimeline(parseSession(damaged.join("\n")));
    expect(problems).toEqual([
      { line: 4, reason: "the line is not valid JSON" },
      { line: 8, reason: "the line is cut off (was agentloop killed while writing?)" },
    ]);
    expect(messages).toHaveLength(4);
    expect(steps.map((step) => step.request)).toEqual([1, 2]);
  });

  it("reads a tool-results message holding blocks agentloop never writes", () => {
    const odd = JSON.stringify({
      type: "message",
      at,
      turn: 1,
      message: {
        role: "user",
        content: [null, { type: "tool_result", tool_use_id: "t1", content: "ok" }],
      },
    });
    const { steps } = timelineOf(header, prompt("q"), reply(1, "a"), odd);
    expect(steps.map((step) => step.shownCount)).toEqual([3]);
  });

  it("has no steps for a session without messages", () => {
    const { steps, items } = timelineOf(header);
    expect(steps).toEqual([]);
    expect(items).toEqual([]);
  });
});

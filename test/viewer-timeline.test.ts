import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkpointEvent, rewindEvent } from "../src/checkpoints/records.js";
import type { PartEvent } from "../src/core/events.js";
import { type Message, textOf } from "../src/core/messages.js";
import { parseSession } from "../src/session/session-file.js";
import { buildTimeline, type Step, sentIndexes, sentMessages } from "../src/viewer/timeline.js";
import {
  CLEAR_STUB,
  compactedSession,
  SUMMARY,
  SUMMARY_INSTRUCTIONS,
} from "./support/synthetic-session.js";

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
        context: 0,
        sentCount: 1,
        shownCount: 2,
        reply: null,
        summary: null,
        compaction: null,
        transitionReason: null,
        stop: { reason: "error", detail: "The API could not be reached." },
        todos: [],
        skills: [],
      },
    ]);
  });

  it("gives each step the todo list as it stood when its request was sent", () => {
    const todos = [{ content: "Read the code", status: "in_progress" }];
    const call = JSON.stringify({
      type: "message",
      at,
      turn: 1,
      stopReason: "tool_use",
      message: {
        role: "assistant",
        content: [{ type: "tool_use", id: "t1", name: "todo_write", input: { todos } }],
      },
    });
    const result = JSON.stringify({
      type: "message",
      at,
      turn: 1,
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: "[>] Read the code" }],
      },
    });
    const { steps } = timelineOf(header, prompt("plan"), call, result, reply(2, "Planned."));
    // The first request was sent before the list existed; the second carried it.
    expect(steps.map((step) => step.todos)).toEqual([[], todos]);
  });

  it("keeps the todo list of the last call that succeeded when a later call fails", () => {
    const first = [{ content: "Read the code", status: "in_progress" }];
    const second = [{ content: "Not a list the tool took", status: "pending" }];
    const turn = (n: number, id: string, todos: object[], isError: boolean) => [
      JSON.stringify({
        type: "message",
        at,
        turn: n,
        stopReason: "tool_use",
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id, name: "todo_write", input: { todos } }],
        },
      }),
      JSON.stringify({
        type: "message",
        at,
        turn: n,
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: id, content: "…", is_error: isError }],
        },
      }),
    ];
    const { steps } = timelineOf(
      header,
      prompt("plan"),
      ...turn(1, "t1", first, false),
      ...turn(2, "t2", second, true),
      reply(3, "Planned."),
    );
    // The second call's list was refused: the third request still carried the first.
    expect(steps.map((step) => step.todos)).toEqual([[], first, first]);
  });

  it("sends, after a rewind of the conversation, the history of the checkpoint it went back to", () => {
    const part = (event: PartEvent) => JSON.stringify({ ...event, at });
    const checkpoint = (number: number) =>
      part(
        checkpointEvent(
          { number, at, prompt: `prompt ${number}`, tree: null },
          "prompt",
          `${number}`,
        ),
      );
    const rewind = (to: number, conversation: boolean) =>
      part(rewindEvent({ to, code: true, conversation, undo: 9 }, `rewound to ${to}`));
    const { steps, messages, contexts } = timelineOf(
      header,
      checkpoint(1),
      prompt("first"),
      reply(1, "one"),
      checkpoint(2),
      prompt("second"),
      reply(2, "two"),
      rewind(1, false),
      prompt("third"),
      reply(3, "three"),
      rewind(2, true),
      prompt("fourth"),
      reply(4, "four"),
    );
    const sent = steps.map((step) =>
      (contexts[step.context] ?? [])
        .slice(0, step.sentCount)
        .map((index) => textOf(messages[index] as Message)),
    );
    expect(sent).toEqual([
      ["first"],
      ["first", "one", "second"],
      // Rewinding the code alone leaves the conversation as it was.
      ["first", "one", "second", "two", "third"],
      // Back to before the second prompt: what followed it is no longer sent.
      ["first", "one", "fourth"],
    ]);
  });

  it("shows a background task's start, notice and stop among the items, in order", () => {
    const task = { task_id: "bg_1", command: "npm run dev", exit_code: null, output_file: "/o" };
    const taskLine = (event: object) => JSON.stringify({ ...event, at });
    const { items } = timelineOf(
      header,
      prompt("start it"),
      taskLine({ type: "task_started", task: { ...task, status: "running" } }),
      reply(1, "started"),
      taskLine({ type: "task_stopped", task: { ...task, status: "killed" }, by: "session_end" }),
    );
    expect(items.filter((item) => item.kind === "marker")).toEqual([
      {
        kind: "marker",
        line: 'Background task started: bg_1 (bash "npm run dev") is running; output in /o',
      },
      {
        kind: "marker",
        line: 'Background task stopped (the session ended): bg_1 (bash "npm run dev") was stopped',
      },
    ]);
  });

  it("gives each step the skills loaded when its request was sent", () => {
    const call = JSON.stringify({
      type: "message",
      at,
      turn: 1,
      stopReason: "tool_use",
      message: {
        role: "assistant",
        content: [
          { type: "tool_use", id: "s1", name: "skill", input: { name: "review" } },
          { type: "tool_use", id: "s2", name: "skill", input: { name: "missing" } },
        ],
      },
    });
    const result = JSON.stringify({
      type: "message",
      at,
      turn: 1,
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "s1",
            content: "Skill review, from /w/.claude/skills/review/SKILL.md.\nIts directory: /w",
          },
          {
            type: "tool_result",
            tool_use_id: "s2",
            content: 'No skill "missing".',
            is_error: true,
          },
        ],
      },
    });
    const { steps } = timelineOf(header, prompt("review"), call, result, reply(2, "Reviewed."));
    expect(steps.map((step) => step.skills)).toEqual([[], ["review"]]);
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

  it("keeps the transition of a turn whose answer is continued after max_tokens", () => {
    const cutOff = JSON.stringify({
      type: "message",
      at,
      turn: 1,
      stopReason: "max_tokens",
      message: { role: "assistant", content: [{ type: "text", text: "half an ans" }] },
    });
    const continuation = JSON.stringify({
      type: "message",
      at,
      turn: 1,
      message: { role: "user", content: "Continue exactly where it stopped." },
    });
    const turnEnd = JSON.stringify({
      type: "turn_end",
      at,
      turn: 1,
      transitionReason: "max_tokens_recovery",
    });
    const { steps } = timelineOf(
      header,
      prompt("q"),
      cutOff,
      continuation,
      turnEnd,
      reply(2, "wer"),
    );
    expect(steps.map((step) => step.transitionReason)).toEqual(["max_tokens_recovery", null]);
    expect(steps.map((step) => step.sentCount)).toEqual([1, 3]);
  });

  it("has no steps for a session without messages", () => {
    const { steps, items } = timelineOf(header);
    expect(steps).toEqual([]);
    expect(items).toEqual([]);
  });
});

describe("the viewer's timeline of a compacted session", () => {
  const session = parseSession(compactedSession());
  const timeline = buildTimeline(session);
  const { steps, items } = timeline;
  const step = (index: number) => steps[index] as Step;
  const sent = (index: number) => sentMessages(timeline, step(index));
  // As recorded in the file: prompt, call 1, result 1, call 2, result 2, call 3, result 3,
  // the final answer.
  const [first, call1, result1, call2, result2, call3, result3, answer] =
    session.messages as Message[];
  const stubbed1 = {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "toolu_1", content: CLEAR_STUB, is_error: true }],
  };
  const summaryRecord = session.entries.find(
    (entry) => entry.type === "compaction" && entry.kind === "summary",
  ) as { messages: Message[] };

  it("has a step per request: three tool turns, the summary request, the retried turn", () => {
    expect(steps.map((step) => step.request)).toEqual([1, 2, 3, 4, 5]);
    expect(steps.map((step) => step.summary)).toEqual([
      null,
      null,
      null,
      { summarizedCount: 5 },
      null,
    ]);
    expect(steps.map((step) => step.reply?.turn)).toEqual([1, 2, 3, null, 5]);
  });

  it("sends every message as recorded before a clear, and the cleared results as stubs after it", () => {
    expect(sent(0)).toEqual([first]);
    expect(sent(1)).toEqual([first, call1, result1]);
    expect(sent(2)).toEqual([first, call1, stubbed1, call2, result2]);
  });

  it("sends the summary request the history as it stood, then the instructions", () => {
    expect(sent(3)).toEqual([
      first,
      call1,
      stubbed1,
      call2,
      result2,
      { role: "user", content: SUMMARY_INSTRUCTIONS },
    ]);
    expect(step(3).reply).toMatchObject({
      turn: null,
      stopReason: null,
      durationMs: 5_400,
      usage: { input_tokens: 9_000, output_tokens: 50 },
    });
    expect(timeline.messages[step(3).reply?.index ?? -1]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: SUMMARY }],
    });
  });

  it("sends the summarised history after a summary, then what was recorded after it", () => {
    expect(sent(4)).toEqual([summaryRecord.messages[0], call3, result3]);
    expect(summaryRecord.messages).toEqual(sent(4));
    expect(timeline.messages[step(4).reply?.index ?? -1]).toEqual(answer);
  });

  it("keeps the index of each message a summary kept verbatim, so only the summary is new", () => {
    const beforeSummary = timeline.contexts[step(2).context] as number[];
    const after = sentIndexes(timeline, step(4));
    expect(after.slice(1)).toEqual(beforeSummary.slice(5, 7));
    expect(beforeSummary).not.toContain(after[0]);
  });

  it("keeps every recorded message in the conversation, with a boundary at each compaction", () => {
    expect(
      items.map((item) => (item.kind === "message" ? (item.label ?? "message") : item.kind)),
    ).toEqual([
      "message",
      "message",
      "message",
      "message",
      "message",
      "compaction",
      "message",
      "message",
      "summary request",
      "summary",
      "compaction",
      "message",
      "stop",
    ]);
    const recorded = items.flatMap((item) =>
      item.kind === "message" && !item.label ? [timeline.messages[item.index]] : [],
    );
    expect(recorded).toEqual(session.messages);
    expect(items.filter((item) => item.kind === "compaction")).toEqual([
      {
        kind: "compaction",
        method: "clear",
        trigger: "auto",
        tokensBefore: 182_000,
        tokensAfter: 41_000,
        contextWindow: 200_000,
        count: 1,
        transitionReason: null,
      },
      {
        kind: "compaction",
        method: "summary",
        trigger: "too_long",
        tokensBefore: 170_000,
        tokensAfter: 12_000,
        contextWindow: 200_000,
        count: 5,
        transitionReason: "compact_retry",
      },
    ]);
  });

  it("shows a clear with the next request, and a summary with its own request", () => {
    expect(steps.map((step) => step.shownCount)).toEqual([3, 5, 8, 11, 13]);
    // The first request that sends each compaction's result names it.
    expect(steps.map((step) => step.compaction)).toEqual([null, null, 5, null, 10]);
  });

  it("keeps each turn's transition; the refused request's compact_retry goes with its compaction", () => {
    expect(steps.map((step) => step.transitionReason)).toEqual([
      "tool_result",
      "tool_result",
      "tool_result",
      null,
      null,
    ]);
    expect(step(4).stop).toEqual({ reason: "end_turn", detail: "The model finished its answer." });
  });

  it("makes a new history only at a compaction and for a summary request", () => {
    expect(steps.map((step) => step.context)).toEqual([0, 0, 1, 2, 3]);
    expect(timeline.contexts).toHaveLength(4);
    expect(buildTimeline(parseSession(fixture)).contexts).toEqual([[0, 1, 2, 3, 4, 5]]);
  });

  it("attaches a context_too_long stop after a compaction to the last request", () => {
    const lines = compactedSession().trimEnd().split("\n").slice(0, 9);
    const stopLine = stop("context_too_long", "The conversation does not fit the context window.");
    const { steps: cut, items: cutItems } = timelineOf(...lines, stopLine);
    expect(cut).toHaveLength(2);
    expect(cut[1]?.stop?.reason).toBe("context_too_long");
    expect(cut[1]?.shownCount).toBe(cutItems.length);
    expect(cutItems.map((item) => item.kind).slice(-2)).toEqual(["compaction", "stop"]);
  });

  it("ignores a cleared id it cannot find and keeps reading", () => {
    const clear = JSON.stringify({
      type: "compaction",
      at,
      trigger: "manual",
      tokensBefore: 10,
      tokensAfter: 10,
      contextWindow: 100,
      kind: "clear",
      cleared: [{ tool_use_id: "nowhere", stub: "x" }, null],
    });
    const built = timelineOf(
      header,
      prompt("q"),
      reply(1, "a"),
      clear,
      prompt("q2"),
      reply(2, "b"),
    );
    expect(built.steps.map((step) => [step.context, step.sentCount])).toEqual([
      [0, 1],
      [0, 3],
    ]);
    expect(built.steps[1]?.compaction).toBe(2);
  });
});

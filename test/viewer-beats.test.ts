import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseSession } from "../src/session/session-file.js";
import type { Beat } from "../src/viewer/beats.js";
import { buildTimeline } from "../src/viewer/timeline.js";
import { compactedSession } from "./support/synthetic-session.js";

const fixture = readFileSync(new URL("./fixtures/viewer-session.jsonl", import.meta.url), "utf8");
const at = "2026-12-04T09:00:00.000Z";
const line = (value: object) => JSON.stringify({ at, ...value });
const beatsOf = (text: string) => buildTimeline(parseSession(text)).beats;
/** A beat as a reader follows it: the code that did it, the lesson step, messages[]'s length. */
const walk = (beats: Beat[]) =>
  beats.map((beat) => [beat.code.join(" + "), beat.lesson, beat.count, beat.step]);

describe("the viewer's beats: every step of the loop, with the code that made it", () => {
  it("follows the course's five steps through a bash round trip, messages[] growing by one at each append", () => {
    const beats = beatsOf(fixture);
    expect(walk(beats)).toEqual([
      ["loop.prompt", 1, 1, 0],
      ["loop.send", 2, 1, 0],
      ["loop.reply", 3, 2, 0],
      ["loop.tool + tool.bash", 4, 2, 0],
      ["loop.results", 5, 3, 0],
      ["loop.send", 2, 3, 1],
      ["loop.reply", 3, 4, 1],
      ["loop.tool + tool.bash", 4, 4, 1],
      ["loop.tool + tool.bash", 4, 4, 1],
      ["loop.results", 5, 5, 1],
      ["loop.send", 2, 5, 2],
      ["loop.reply", 3, 6, 2],
      ["loop.stop", null, 6, 2],
    ]);
    // Each tool's beat names the call it ran; the turn's end says why the loop went on.
    const [first, second] = beats.filter((beat) => beat.lesson === 4).slice(1);
    expect([first?.call, second?.call]).toEqual(["toolu_02PkJs7m", "toolu_03RdMe4q"]);
    expect(beats.filter((beat) => beat.transition).map((beat) => beat.code[0])).toEqual([
      "loop.results",
      "loop.results",
    ]);
    expect(beats.at(-1)?.label).toBe("end_turn");
  });

  it("shows a compaction as a beat beside the loop, with the history it left and why the loop went on", () => {
    const { beats, contexts } = buildTimeline(parseSession(compactedSession()));
    const compactions = beats.filter((beat) => beat.code[0]?.startsWith("compaction."));
    expect(compactions.map((beat) => [beat.code[0], beat.lesson])).toEqual([
      ["compaction.clear", null],
      ["compaction.summary", null],
    ]);
    const summary = compactions[1] as Beat;
    expect(summary.transition).toBe("compact_retry");
    // After the summary, messages[] is the summarised history: the summary and the kept turn.
    expect(contexts[summary.context]?.slice(0, summary.count)).toHaveLength(3);
    // The request after it sends exactly that history.
    const next = beats[beats.indexOf(summary) + 1];
    expect([next?.code[0], next?.context, next?.count]).toEqual(["loop.send", summary.context, 3]);
  });

  it("names a chapter's code by the anchor convention, and puts a tool's hooks on either side of its run", () => {
    const call = (id: string, name: string) => ({ type: "tool_use", id, name, input: {} });
    const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });
    const text = [
      { type: "session", version: 1, id: "s", cwd: "/p", model: "m", provider: "anthropic" },
      { type: "message", message: { role: "user", content: "Go." } },
      { type: "part", part: "goal", name: "goal_set", line: "Goal set: tests pass" },
      {
        type: "message",
        turn: 1,
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Plan first.", signature: "sig" },
            call("a", "mcp__files__read"),
            call("b", "web_fetch"),
          ],
        },
      },
      {
        type: "hook",
        event: "PreToolUse",
        command: "./check.sh",
        source: "project",
        exitCode: 0,
        durationMs: 5,
        decision: "allow",
        toolUseId: "b",
      },
      {
        type: "hook",
        event: "PostToolUse",
        command: "./log.sh",
        source: "user",
        exitCode: 0,
        durationMs: 4,
        decision: "allow",
        toolUseId: "a",
      },
      { type: "message", turn: 1, message: { role: "user", content: [result("a"), result("b")] } },
      { type: "task_started", task: { id: "t1", command: "sleep 1", kind: "bash" } },
      { type: "turn_end", turn: 1, transitionReason: "tool_result" },
    ];
    const beats = beatsOf(`${text.map(line).join("\n")}\n`);
    expect(beats.map((beat) => [beat.code.join(" + "), beat.label ?? null])).toEqual([
      ["loop.prompt", null],
      ["goal.goal_set", null],
      ["loop.send", null],
      ["loop.reply + thinking", null],
      ["hooks", "PreToolUse"],
      ["loop.tool + mcp.call", "mcp__files__read"],
      ["hooks", "PostToolUse"],
      ["loop.tool + tool.web_fetch", "web_fetch"],
      ["loop.results", null],
      ["background.task_started", null],
    ]);
    // The turn ended after the task started: the reason goes with the latest beat.
    expect(beats.at(-1)?.transition).toBe("tool_result");
  });

  it("tells the two ways the loop keeps a finished model going apart by the turn's reason", () => {
    const reply = (turn: number, stopReason: string) => ({
      type: "message",
      turn,
      stopReason,
      message: { role: "assistant", content: [{ type: "text", text: "Done?" }] },
    });
    const goOn = (turn: number, content: string) => ({
      type: "message",
      turn,
      message: { role: "user", content },
    });
    const text = [
      { type: "session", version: 1, id: "s", cwd: "/p", model: "m", provider: "anthropic" },
      { type: "message", message: { role: "user", content: "Write it." } },
      reply(1, "max_tokens"),
      goOn(1, "Continue exactly where it stopped."),
      { type: "turn_end", turn: 1, transitionReason: "max_tokens_recovery" },
      reply(2, "end_turn"),
      goOn(2, "The tests still fail."),
      { type: "turn_end", turn: 2, transitionReason: "stop_hook" },
    ];
    const continuations = beatsOf(`${text.map(line).join("\n")}\n`).filter(
      (beat) => beat.transition,
    );
    expect(continuations.map((beat) => [beat.code[0], beat.transition])).toEqual([
      ["loop.continue", "max_tokens_recovery"],
      ["loop.stop_check", "stop_hook"],
    ]);
  });
});

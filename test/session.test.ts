import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findSessionToResume } from "../src/session/resume.js";
import {
  listSessions,
  openSessionWriter,
  parseSession,
  type SessionHeader,
  sessionIds,
} from "../src/session/session-file.js";

const header = (
  id: string,
  cwd: string,
  startedAt = "2026-11-29T10:00:00.000Z",
): SessionHeader => ({
  type: "session",
  version: 1,
  id,
  cwd,
  model: "claude-test",
  provider: "anthropic",
  startedAt,
});

describe("session files", () => {
  it("writes a header and one line per message, readable back as the same history", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-sessions-"));
    const writer = openSessionWriter(dir, header("s1", "/work"));
    writer.recordMessage({ role: "user", content: "hi" });
    writer.recordEvent({
      type: "assistant_message",
      turn: 1,
      message: { role: "assistant", content: [{ type: "text", text: "hello" }] },
      stopReason: "end_turn",
      usage: {
        input_tokens: 3,
        output_tokens: 1,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
      durationMs: 12,
    });
    writer.recordEvent({ type: "stop", reason: "end_turn", detail: "done", finalText: "hello" });
    const lines = readFileSync(writer.path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.type)).toEqual(["session", "message", "message", "stop"]);
    expect(lines[2]).toMatchObject({ turn: 1, stopReason: "end_turn", durationMs: 12 });
    const read = parseSession(readFileSync(writer.path, "utf8"));
    expect(read.header?.id).toBe("s1");
    expect(read.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "hello" }] },
    ]);
    expect(read.problems).toEqual([]);
  });

  it("reports a corrupt line and a cut-off last line by number and keeps the rest", () => {
    const text = [
      JSON.stringify(header("s2", "/w")),
      JSON.stringify({ type: "message", at: "t", message: { role: "user", content: "one" } }),
      "{not json",
      JSON.stringify({ type: "message", at: "t", message: { role: "assistant", content: [] } }),
      '{"type":"message","at":"t","message":{"role":"us',
    ].join("\n");
    const read = parseSession(text);
    expect(read.messages).toHaveLength(2);
    expect(read.problems).toEqual([
      { line: 3, reason: "the line is not valid JSON" },
      { line: 5, reason: "the line is cut off (was agentloop killed while writing?)" },
    ]);
  });

  it("lists this directory's sessions newest first with their first prompt and turns", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-sessions-"));
    const older = openSessionWriter(dir, header("old", "/proj", "2026-11-01T00:00:00.000Z"));
    older.recordMessage({ role: "user", content: "first task\nwith details" });
    const newer = openSessionWriter(dir, header("new", "/proj", "2026-11-02T00:00:00.000Z"));
    newer.recordMessage({ role: "user", content: "second task" });
    openSessionWriter(dir, header("elsewhere", "/other"));
    const sessions = listSessions(dir, "/proj");
    expect(sessions.map((s) => [s.id, s.firstPrompt, s.turns])).toEqual([
      ["new", "second task", 0],
      ["old", "first task", 0],
    ]);
    // Completion reads the header lines only, and names the same sessions in the same order.
    expect(sessionIds(dir, "/proj")).toEqual(["new", "old"]);
  });
});

describe("the session header", () => {
  it("keeps no password of a model's address (--provider local --model https://user:pass@host/...)", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-session-"));
    const model = "https://me:hunter2hunter2@models.example/tiny.gguf";
    const writer = openSessionWriter(dir, { ...header("s1", "/work"), model });
    const [first] = readFileSync(writer.path, "utf8").split("\n");
    expect(first).not.toContain("hunter2");
    expect(JSON.parse(first as string).model).toBe(
      "https://me:[redacted:url-password]@models.example/tiny.gguf",
    );
  });
});

describe("resuming", () => {
  it("answers tool calls left without results by a killed run, so the history is valid", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-sessions-"));
    const writer = openSessionWriter(dir, header("killed", "/p"));
    writer.recordMessage({ role: "user", content: "run it" });
    writer.recordMessage({
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_9", name: "bash", input: { command: "sleep 100" } }],
    });
    const resumed = findSessionToResume(dir, "/p", { id: "killed" });
    expect(resumed.added).toEqual([
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_9",
            content: "Interrupted by the user before this call finished.",
            is_error: true,
          },
        ],
      },
    ]);
    expect(resumed.messages).toHaveLength(3);
  });

  it("keeps what a resumed run writes apart from a line the killed run left cut off", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-sessions-"));
    const first = openSessionWriter(dir, header("torn", "/p"));
    first.recordMessage({ role: "user", content: "one" });
    first.close();
    appendFileSync(join(dir, "torn.jsonl"), '{"type":"message","at":"2026-');
    const resumed = findSessionToResume(dir, "/p", { id: "torn" });
    const second = openSessionWriter(dir, resumed.header, { resume: true });
    second.recordMessage({ role: "user", content: "two" });
    second.close();
    const read = parseSession(readFileSync(join(dir, "torn.jsonl"), "utf8"));
    expect(read.messages).toEqual([
      { role: "user", content: "one" },
      { role: "user", content: "two" },
    ]);
    expect(read.problems).toEqual([{ line: 3, reason: "the line is not valid JSON" }]);
  });

  it("continues the latest session of this directory and says clearly when there is none", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-sessions-"));
    expect(() => findSessionToResume(dir, "/p", { latest: true })).toThrow(
      /no session to continue in \/p/,
    );
    const writer = openSessionWriter(dir, header("only", "/p"));
    writer.recordMessage({ role: "user", content: "x" });
    expect(findSessionToResume(dir, "/p", { latest: true }).header.id).toBe("only");
    expect(() => findSessionToResume(dir, "/p", { id: "nope" })).toThrow(/no session with id nope/);
  });

  it("refuses a file without a readable header in one sentence", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentloop-sessions-"));
    writeFileSync(join(dir, "broken.jsonl"), "garbage\n");
    appendFileSync(join(dir, "broken.jsonl"), "more garbage\n");
    expect(() => findSessionToResume(dir, "/p", { id: "broken" })).toThrow(
      /has no readable header line/,
    );
  });
});

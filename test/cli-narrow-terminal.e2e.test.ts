// The REPL in a terminal 80 columns wide, read back as the screen a person sees (a terminal
// emulator plays what the CLI wrote): notices longer than the terminal wrap, and erasing the
// progress line, whatever it showed, leaves nothing of it behind.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { httpError, reply, text, thinking, toolUse } from "./support/fake-anthropic-server.js";
import { screenLines } from "./support/screen.js";
import { openRepl } from "./support/terminal.js";

const COLUMNS = 80;
const CTRL_C = "\x03";
/** Thinking in Chinese: each character takes two columns, so its line is twice as wide as long. */
const WIDE_THOUGHT = "先看看测试脚本在哪里，然后运行它并等待结果出来。".repeat(3);

describe("the REPL in a terminal 80 columns wide", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("after long notices, wide thinking, a tool call and Ctrl-C, shows the call's header once and nothing of the live line", async () => {
    model.script([
      httpError(529, "overloaded_error", "Overloaded: every server of this region is busy now."),
      {
        kind: "reply",
        content: [thinking(WIDE_THOUGHT), toolUse("slow", "bash", { command: "sleep 30" })],
        thinkMs: 700,
      },
      reply(text("Stopped.")),
    ]);
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      // A model the SDK warns about as deprecated, at every request: one notice, and a long one.
      args: ["--permission-mode", "yolo", "--model", "claude-opus-4-5"],
      columns: COLUMNS,
    });
    terminal.type("wait a while\r");
    await terminal.waitFor(/running… \d/);
    await terminal.press(CTRL_C, /Interrupted by the user[\s\S]*› /);

    const lines = await screenLines(terminal.output(), COLUMNS);
    expect(lines.filter((line) => line.includes("⏺ bash $ sleep 30"))).toEqual([
      "⏺ bash $ sleep 30",
    ]);
    expect(lines.filter((line) => line.includes("reaches end of life"))).toHaveLength(1);
    expect(lines.filter((line) => line.includes("overloaded (529"))).toHaveLength(1);
    // The live line showed a countdown, the thinking and a timer; each was erased, every row.
    expect(terminal.output()).toContain("先看看");
    expect(lines.filter((line) => /^↻ retrying in|thinking…|running…/.test(line))).toEqual([]);
    expect(lines.filter((line) => line.includes("先看看"))).toEqual([]);
    expect(await terminal.exit()).toBe(0);
  });
});

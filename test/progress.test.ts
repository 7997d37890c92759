// The live progress line at the terminal: what a person sees while the model thinks, a retry
// waits or a tool runs, and that none of it is left behind in the answer or a tool's output.

import stringWidth from "string-width";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { LoopEvent } from "../src/core/events.js";
import type { ToolUseBlock } from "../src/core/messages.js";
import { createProgress, duration, type ProgressOptions } from "../src/terminal/progress.js";
import { loadTextWidth } from "../src/terminal/text-width.js";

// The CLI loads the measures when an output is a terminal; these tests stand for one.
beforeAll(loadTextWidth);

/** A terminal that keeps what a person would see: `\r` goes to column 0, `\x1b[K` erases. */
function fakeTerminal(columns = 80) {
  const lines = [""];
  let column = 0;
  let written = "";
  const output = {
    isTTY: true,
    columns,
    write(text: string) {
      written += text;
      for (let i = 0; i < text.length; i++) {
        const row = lines.length - 1;
        const line = lines[row] ?? "";
        if (text.startsWith("\x1b[K", i)) {
          lines[row] = line.slice(0, column);
          i += 2;
        } else if (text[i] === "\r") column = 0;
        else if (text[i] === "\n") {
          lines.push("");
          column = 0;
        } else {
          lines[row] = line.slice(0, column) + text[i] + line.slice(column + 1);
          column += 1;
        }
      }
    },
  };
  return {
    output,
    lines: () => [...lines],
    /** The line the cursor is on: where the progress line lives. */
    current: () => lines.at(-1) ?? "",
    written: () => written,
  };
}

function setup(options: Partial<ProgressOptions> = {}, columns = 80) {
  const terminal = fakeTerminal(columns);
  const progress = createProgress({ output: terminal.output, now: () => Date.now(), ...options });
  return { terminal, progress };
}

const call: ToolUseBlock = {
  type: "tool_use",
  id: "toolu_1",
  name: "bash",
  input: { command: "sleep 20" },
};
const turnStart: LoopEvent = { type: "turn_start", turn: 0 };
const toolStart: LoopEvent = { type: "tool_start", call };
const toolEnd: LoopEvent = {
  type: "tool_end",
  call,
  result: { type: "tool_result", tool_use_id: call.id, content: "done" },
  durationMs: 20_000,
};

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the progress line while waiting for the model", () => {
  it("shows a spinner after turn_start that ticks with the elapsed time", () => {
    const { terminal, progress } = setup();
    progress.onEvent(turnStart);
    vi.advanceTimersByTime(100);
    expect(terminal.current()).toBe("⠋ thinking… 0.1 s");
    vi.advanceTimersByTime(100);
    expect(terminal.current()).toBe("⠙ thinking… 0.2 s");
    vi.advanceTimersByTime(3000);
    expect(terminal.current()).toMatch(/^. thinking… 3\.2 s$/);
    expect(terminal.lines()).toHaveLength(1);
  });

  it("shows the latest words of the model's thinking, dim, on the one line", () => {
    const { terminal, progress } = setup({}, 80);
    progress.onEvent(turnStart);
    progress.onEvent({ type: "thinking_delta", text: "The user wants the tests run.\nFirst I" });
    progress.onEvent({ type: "thinking_delta", text: " look for a package.json and its scripts." });
    vi.advanceTimersByTime(100);
    expect(terminal.current()).toBe(
      "⠋ thinking… 0.1 s · First I look for a package.json and its scripts.",
    );
    expect(terminal.lines()).toHaveLength(1);
  });

  it("is erased before the answer's text, which starts on a clean line", () => {
    const { terminal, progress } = setup();
    progress.onEvent(turnStart);
    vi.advanceTimersByTime(3200);
    progress.onEvent({ type: "text_delta", text: "Hi" });
    terminal.output.write("Hi");
    vi.advanceTimersByTime(1000);
    expect(terminal.lines()).toEqual(["Hi"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("counts down to a retry, then waits for the new attempt", () => {
    const { terminal, progress } = setup();
    progress.onEvent(turnStart);
    vi.advanceTimersByTime(1000);
    progress.onEvent({ type: "retry", attempt: 2, delayMs: 4000, reason: "Overloaded." });
    terminal.output.write("↻ Overloaded.; retrying in 4.0 s (attempt 2)\n");
    vi.advanceTimersByTime(100);
    expect(terminal.current()).toBe("↻ retrying in 3.9 s (attempt 2): Overloaded.");
    vi.advanceTimersByTime(1900);
    expect(terminal.current()).toBe("↻ retrying in 2.0 s (attempt 2): Overloaded.");
    vi.advanceTimersByTime(2500);
    expect(terminal.current()).toMatch(/^. thinking… 0\.5 s$/);
    expect(terminal.lines()[0]).toBe("↻ Overloaded.; retrying in 4.0 s (attempt 2)");
  });

  it("goes on while an answer that is not shown (piped stdout) is written, estimating tokens", () => {
    const { terminal, progress } = setup({ streamText: false });
    progress.onEvent(turnStart);
    vi.advanceTimersByTime(1000);
    progress.onEvent({ type: "text_delta", text: "x".repeat(400) });
    vi.advanceTimersByTime(1000);
    expect(terminal.current()).toMatch(/^. writing… 2\.0 s · ~100 tokens$/);
  });

  it("clips a line wider than the terminal, since only the last row of a wrapped line is erased", () => {
    const { terminal, progress } = setup({}, 40);
    progress.onEvent({ type: "retry", attempt: 3, delayMs: 9000, reason: "x".repeat(200) });
    vi.advanceTimersByTime(100);
    expect([...terminal.current()]).toHaveLength(39);
    expect(terminal.current().endsWith("x…")).toBe(true);
  });

  it("clips by the columns a line takes, so East Asian text, two columns a character, fits too", () => {
    const { terminal, progress } = setup({}, 50);
    const reason = "服务器当前负载过高，请稍后重试。".repeat(3);
    progress.onEvent({ type: "retry", attempt: 2, delayMs: 9000, reason });
    vi.advanceTimersByTime(100);
    expect(stringWidth(terminal.current())).toBeLessThanOrEqual(49);
    expect(terminal.current()).toMatch(/^↻ retrying in 8\.9 s \(attempt 2\): 服务器.*…$/);
  });

  it("shows a tab in a retry's reason as a space, whose width it can count", () => {
    const { terminal, progress } = setup();
    progress.onEvent({ type: "retry", attempt: 2, delayMs: 9000, reason: "busy:\ttry later" });
    vi.advanceTimersByTime(100);
    expect(terminal.current()).toBe("↻ retrying in 8.9 s (attempt 2): busy: try later");
  });

  it("uses 80 columns when the terminal reports a width of 0, as a pty nobody sized does", () => {
    const { terminal, progress } = setup({}, 0);
    progress.onEvent(turnStart);
    vi.advanceTimersByTime(100);
    expect(terminal.current()).toBe("⠋ thinking… 0.1 s");
  });
});

describe("the progress line while a tool runs", () => {
  it("shows nothing for a tool that finishes within half a second", () => {
    const { terminal, progress } = setup();
    progress.onEvent(toolStart);
    vi.advanceTimersByTime(400);
    progress.onEvent(toolEnd);
    expect(terminal.written()).toBe("");
  });

  it("shows a slow tool's running time under its call and erases it before the result", () => {
    const { terminal, progress } = setup();
    progress.onEvent(toolStart);
    terminal.output.write("⏺ bash $ sleep 20\n");
    vi.advanceTimersByTime(500);
    expect(terminal.current()).toBe("  ⎿ running… 0.5 s");
    vi.advanceTimersByTime(11_900);
    expect(terminal.current()).toBe("  ⎿ running… 12.4 s");
    progress.onEvent(toolEnd);
    terminal.output.write("  ⎿ done\n");
    expect(terminal.lines()).toEqual(["⏺ bash $ sleep 20", "  ⎿ done", ""]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("draws nothing while a question is asked, and times the tool from the answer on", () => {
    const { terminal, progress } = setup();
    progress.onEvent(toolStart);
    vi.advanceTimersByTime(600);
    const release = progress.hold();
    expect(terminal.current()).toBe("");
    terminal.output.write("Allow? [y]es, [n]o: ");
    vi.advanceTimersByTime(5000);
    expect(terminal.current()).toBe("Allow? [y]es, [n]o: ");
    terminal.output.write("y\n");
    release();
    vi.advanceTimersByTime(400);
    expect(terminal.current()).toBe("");
    vi.advanceTimersByTime(100);
    expect(terminal.current()).toBe("  ⎿ running… 0.5 s");
  });

  it("writes minutes once a tool has run for more than one", () => {
    expect(duration(59_900)).toBe("59.9 s");
    expect(duration(125_300)).toBe("2 m 05 s");
  });
});

describe("ending the progress line", () => {
  it("stop() erases the line and leaves no timer, so the process can exit", () => {
    const { terminal, progress } = setup();
    progress.onEvent(turnStart);
    vi.advanceTimersByTime(1000);
    expect(terminal.current()).not.toBe("");
    progress.stop();
    expect(terminal.lines()).toEqual([""]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("the loop's stop event erases the line as well", () => {
    const { terminal, progress } = setup();
    progress.onEvent(turnStart);
    vi.advanceTimersByTime(1000);
    progress.onEvent({
      type: "stop",
      reason: "interrupted",
      detail: "Interrupted.",
      finalText: "",
    });
    expect(terminal.lines()).toEqual([""]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("draws nothing at all and starts no timer when the output is not a terminal", () => {
    const terminal = fakeTerminal();
    const progress = createProgress({ output: { ...terminal.output, isTTY: false } });
    for (const event of [turnStart, toolStart]) {
      progress.onEvent(event);
      vi.advanceTimersByTime(5000);
    }
    progress.hold()();
    progress.beforeOutput();
    progress.stop();
    expect(terminal.written()).toBe("");
    expect(vi.getTimerCount()).toBe(0);
  });
});

// The REPL in a terminal 80 columns wide, read back as the screen a person sees (a terminal
// emulator plays what the CLI wrote): lines longer than the terminal wrap, and erasing the
// progress line leaves nothing of it behind.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { httpError, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { screenLines } from "./support/screen.js";
import { openRepl } from "./support/terminal.js";

const COLUMNS = 80;
const CTRL_C = "\x03";
/** Characters two columns wide each: a line of them is twice as wide as it is long. */
const WIDE_REASON = "服务器当前负载过高，请稍后重试。".repeat(4);

describe("the REPL in a terminal 80 columns wide", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("after a long retry notice, a tool call and Ctrl-C, shows the call's header once and no stale countdown", async () => {
    model.script([
      httpError(529, "overloaded_error", WIDE_REASON),
      reply(toolUse("slow", "bash", { command: "sleep 30" })),
      reply(text("Stopped.")),
    ]);
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: ["--permission-mode", "yolo"],
      columns: COLUMNS,
    });
    terminal.type("wait a while\r");
    await terminal.waitFor(/running… \d/);
    await terminal.press(CTRL_C, /Interrupted by the user[\s\S]*› /);

    const lines = await screenLines(terminal.output(), COLUMNS);
    expect(lines.filter((line) => line.includes("⏺ bash $ sleep 30"))).toEqual([
      "⏺ bash $ sleep 30",
    ]);
    // The notice stays, once; the live countdown and timer under it were erased, every row.
    expect(lines.filter((line) => line.includes("overloaded (529"))).toHaveLength(1);
    expect(lines.filter((line) => line.includes("↻ retrying in"))).toEqual([]);
    expect(lines.filter((line) => line.includes("running…"))).toEqual([]);
    expect(await terminal.exit()).toBe(0);
  });
});

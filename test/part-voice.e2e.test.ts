// The seam's voice (src/core/part.ts): a part added from outside src/ queues a prompt that the
// REPL runs once the session is idle, never over a line being typed, and a part's command
// announces an event that is on the screen before the next prompt. The REPL runs in a real
// pseudo-terminal against the fake Anthropic server, with the part added through the list.

import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

const REPL_WITH_PART = [
  process.execPath,
  "--import",
  import.meta.resolve("tsx"),
  resolve(import.meta.dirname, "support", "repl-with-part.ts"),
];

/** The prompts the session file holds, in order. */
function prompts(sandbox: ReturnType<typeof freshSandbox>): unknown[] {
  return onlySession(sandbox)
    .messages.filter((message) => message.role === "user" && typeof message.content === "string")
    .map((message) => message.content);
}

describe("a part's voice in the REPL", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("shows a command's event at once, then runs the prompt it queued as the session goes idle", async () => {
    model.script([reply(text("It is teal at the door."))]);
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      program: REPL_WITH_PART,
    });
    const shown = await terminal.press("/knock teal\r", /answered end_turn/);
    const order = [
      "knocking (when-idle)",
      "◆ knocked teal",
      "who is there? teal",
      "It is teal at the door.",
    ];
    const at = order.map((line) => shown.indexOf(line));
    expect(
      at.every((index) => index >= 0),
      shown,
    ).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // The event is on the screen before the prompt is shown again, the queued text after it.
    expect(shown.slice(0, at[1])).not.toContain("› ");
    expect(shown.slice(at[1], at[2])).toContain("› ");
    expect(await terminal.exit()).toBe(0);
    expect(prompts(sandbox)).toEqual(["who is there? teal"]);
    expect(onlySession(sandbox).entries).toContainEqual(
      expect.objectContaining({
        type: "part",
        part: "knock",
        name: "knocked",
        line: "knocked teal",
      }),
    );
  }, 30_000);

  it("waits while a line is being typed, and runs the queued prompt after it", async () => {
    model.script([reply(text("Drafted.")), reply(text("It is red at the door."))]);
    const before = model.requestCount();
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      program: REPL_WITH_PART,
    });
    await terminal.enter("/knock-later red", /knocking in a second/);
    terminal.type("write the draft");
    // The knock comes a second later, while the line is still being typed: nothing is sent.
    await new Promise((done) => setTimeout(done, 2000));
    expect(model.requestCount()).toBe(before);
    await terminal.press("\r", /It is red at the door\.[\s\S]*answered end_turn/);
    expect(await terminal.exit()).toBe(0);
    expect(prompts(sandbox)).toEqual(["write the draft", "who is there? red"]);
  }, 30_000);
});

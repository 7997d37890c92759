// The progress line in a real pseudo-terminal: a spinner while the model thinks and a timer
// while a tool runs, each erased before the answer or the result is written; nothing of it
// when the output is piped.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, runCli, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { openRepl } from "./support/terminal.js";

const ERASE = "\r\x1b[K";

/** The last time `drawn` appears before `then`, followed by an erase before `then`. */
function erasedBefore(screen: string, drawn: string, then: string): boolean {
  const answer = screen.indexOf(then);
  const lastDrawn = screen.lastIndexOf(drawn, answer);
  return lastDrawn !== -1 && screen.slice(lastDrawn, answer).includes(ERASE);
}

describe("the progress line", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("spins while the model thinks and times a slow tool, erasing each before the output", async () => {
    const sandbox = freshSandbox();
    model.script([
      {
        ...reply(toolUse("t1", "bash", { command: "sleep 1.2; printf 'wo%s\\n' ke" })),
        pauseMs: 700,
      },
      { ...reply(text("The command slept.")), pauseMs: 700 },
    ]);
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: ["--permission-mode", "yolo"],
    });
    const shown = await terminal.enter("sleep a little", /The command slept\./);
    expect(shown).toMatch(/thinking… \d+\.\d s/);
    expect(shown).toMatch(/running… \d+\.\d s/);
    expect(erasedBefore(shown, "thinking…", "bash $ sleep")).toBe(true);
    // The result ("woke", which the command line itself does not show) comes after an erase.
    expect(erasedBefore(shown, "running…", "woke\r\n")).toBe(true);
    expect(erasedBefore(shown, "thinking…", "The command slept.")).toBe(true);
    expect(await terminal.exit()).toBe(0);
  });

  it("never reaches piped output", async () => {
    const sandbox = freshSandbox();
    model.script([{ ...reply(text("Done.")), pauseMs: 500 }]);
    const run = await runCli(["-p", "hi"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Done.\n");
    expect(run.stderr).not.toContain("thinking");
    expect(run.stderr).not.toContain(ERASE);
  });
});

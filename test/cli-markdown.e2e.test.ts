// The model's Markdown as a person sees it: rendered in a real pseudo-terminal (the REPL and a
// one-shot run), and exactly as written when the answer is piped.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, runCli, startFakeModel } from "./support/cli-harness.js";
import { reply, text } from "./support/fake-anthropic-server.js";
import { openRepl, openTerminal } from "./support/terminal.js";

const ANSWER = [
  "## Plan for the fix",
  "",
  "The bug is in **parseArgs**, so:",
  "",
  "- read the flags",
  "- check `--port`",
  "",
  "```js",
  'const port = Number(process.env.PORT ?? "8080");',
  "```",
  "",
  "That is all.",
].join("\n");

/** The answer's part of the screen: from its heading to its last line. */
function answerOn(screen: string): string {
  const start = screen.indexOf("Plan for the fix");
  const end = screen.indexOf("That is all.");
  expect(start).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  return screen.slice(Math.max(0, start - 10), end + "That is all.".length + 10);
}

function expectRendered(shown: string) {
  expect(shown).toContain("\x1b[1mPlan for the fix");
  expect(shown).toContain("\x1b[1mparseArgs\x1b[0m");
  expect(shown).toContain("\x1b[2m•\x1b[0m read the flags");
  expect(shown).toContain("\x1b[36m--port\x1b[0m");
  expect(shown).toContain("\x1b[35mconst\x1b[39m port");
  expect(shown).not.toContain("**");
  expect(shown).not.toContain("```");
  expect(shown).not.toContain("## ");
}

describe("Markdown answers", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("are rendered in the REPL: headings, bold, lists and highlighted code, no markup", async () => {
    model.script([reply(text(ANSWER))]);
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    const shown = await terminal.enter("how do I fix it?", /That is all\./);
    expect(await terminal.exit()).toBe(0);
    expectRendered(answerOn(shown));
  });

  it("are rendered by a one-shot run on a terminal", async () => {
    model.script([reply(text(ANSWER))]);
    const sandbox = freshSandbox();
    const terminal = openTerminal({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: ["how do I fix it?"],
    });
    expect(await terminal.exited).toBe(0);
    expectRendered(answerOn(terminal.output()));
  });

  it("are printed exactly as written with -p into a pipe", async () => {
    model.script([reply(text(ANSWER))]);
    const sandbox = freshSandbox();
    const { code, stdout } = await runCli(["-p", "how do I fix it?"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(code).toBe(0);
    expect(stdout).toBe(`${ANSWER}\n`);
    expect(stdout).not.toContain("\x1b");
  });
});

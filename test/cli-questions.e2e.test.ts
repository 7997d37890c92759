// The REPL's permission questions as a person sees them in a terminal 80 columns wide (the
// screen read back through a terminal emulator): what the call would do on one line, what to
// judge it by under it, then the choices; each said once.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  onlySession,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { TEST_SERVER } from "./support/mcp-servers.js";
import { screenLines } from "./support/screen.js";
import { openRepl, type Terminal } from "./support/terminal.js";

const COLUMNS = 80;
const CTRL_C = "\x03";
const BACKSPACE = "\x7f";
/** The line a permission question's answer is typed on. */
const CHOICES = /\[y\]es, \[n\]o.*you may say why: /;

const startRepl = (sandbox: Sandbox, model: FakeModel, args: string[] = []) =>
  openRepl({
    env: { ...sandbox.env, ...model.env() },
    cwd: sandbox.workspace,
    args,
    columns: COLUMNS,
  });

/**
 * Sends `prompt` and waits for the question it leads to; the question's lines as the screen
 * shows them, from `headline` to its choices.
 */
async function questionAfter(
  terminal: Terminal,
  prompt: string,
  headline: string,
): Promise<string[]> {
  await terminal.press(`${prompt}\r`, CHOICES);
  const lines = await screenLines(terminal.output(), COLUMNS);
  const start = lines.indexOf(headline);
  const end = lines.findIndex((line, index) => index > start && /^\[y\]es, \[n\]o/.test(line));
  if (start === -1 || end === -1) throw new Error(`no question "${headline}" on the screen`);
  return lines.slice(start, end + 1);
}

/** How many lines of the screen are exactly `line`. */
async function timesShown(terminal: Terminal, line: string): Promise<number> {
  const lines = await screenLines(terminal.output(), COLUMNS);
  return lines.filter((shown) => shown === line).length;
}

describe("a permission question at the terminal", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("for an edit: asks to allow the edit of the file, with the diff under it", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "notes.txt"), "one\ntwo\nthree\n");
    model.script([
      reply(toolUse("r1", "read", { file_path: "notes.txt" })),
      reply(toolUse("e1", "edit", { file_path: "notes.txt", old_string: "two", new_string: "2" })),
      reply(text("Edited.")),
    ]);
    const terminal = await startRepl(sandbox, model);
    expect(await questionAfter(terminal, "change two to 2", "Allow edit of notes.txt?")).toEqual([
      "Allow edit of notes.txt?",
      "  @@ -1,3 +1,3 @@",
      "   one",
      "  -two",
      "  +2",
      "   three",
      '[y]es, [n]o, [a]lways allow tool:edit; after "n" you may say why:',
    ]);
    await terminal.enter("y", /Edited\./);
    expect(readFileSync(join(sandbox.workspace, "notes.txt"), "utf8")).toBe("one\n2\nthree\n");
    // The result under the call says what was done; the diff it carries was just shown.
    const lines = await screenLines(terminal.output(), COLUMNS);
    expect(lines.filter((line) => line.includes("@@ -1,3 +1,3 @@"))).toHaveLength(1);
    expect(lines).toContain(
      `  ⎿ Edited ${join(sandbox.workspace, "notes.txt")}: 1 replacement, +1 -1 lines.`,
    );
    expect(await terminal.exit()).toBe(0);
  });

  it("for a write of a new file: asks to allow the write, with the file's first lines", async () => {
    const sandbox = freshSandbox();
    model.script([
      reply(toolUse("w1", "write", { file_path: "hello.txt", content: "hello\nworld\n" })),
      reply(text("Written.")),
    ]);
    const terminal = await startRepl(sandbox, model);
    expect(await questionAfter(terminal, "write hello", "Allow write of hello.txt?")).toEqual([
      "Allow write of hello.txt?",
      `  new file ${join(sandbox.workspace, "hello.txt")}, 2 lines`,
      "  +hello",
      "  +world",
      '[y]es, [n]o, [a]lways allow tool:write; after "n" you may say why:',
    ]);
    await terminal.enter("n", /Written\./);
    expect(existsSync(join(sandbox.workspace, "hello.txt"))).toBe(false);
    expect(await terminal.exit()).toBe(0);
  });

  it("for an MCP tool: asks to allow a call to the tool, with its arguments", async () => {
    const sandbox = freshSandbox();
    const config = join(sandbox.home, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { test: { command: process.execPath, args: [TEST_SERVER] } } }),
    );
    model.script([
      reply(toolUse("m1", "mcp__test__add", { a: 2, b: 3 })),
      reply(text("The sum is 5.")),
    ]);
    const terminal = await startRepl(sandbox, model, ["--mcp-config", config]);
    expect(await questionAfter(terminal, "add 2 and 3", "Allow a call to mcp__test__add?")).toEqual(
      [
        "Allow a call to mcp__test__add?",
        "  a: 2",
        "  b: 3",
        "  (mcp__test__add may change files)",
        '[y]es, [n]o, [a]lways allow tool:mcp__test__add; after "n" you may say why:',
      ],
    );
    await terminal.enter("y", /The sum is 5\./);
    expect(await terminal.exit()).toBe(0);
  });

  it("taller than the screen, is not drawn again when a key edits the answer", async () => {
    const sandbox = freshSandbox();
    const lines = Array.from({ length: 40 }, (_, index) => `line ${index + 1}`).join("\n");
    writeFileSync(join(sandbox.workspace, "long.txt"), `${lines}\n`);
    model.script([
      reply(toolUse("r1", "read", { file_path: "long.txt" })),
      reply(
        toolUse("e1", "edit", {
          file_path: "long.txt",
          old_string: lines,
          new_string: lines.toUpperCase(),
        }),
      ),
      reply(text("Edited.")),
    ]);
    const terminal = await startRepl(sandbox, model);
    terminal.type("shout\r");
    await terminal.waitFor(CHOICES);
    // Readline draws its prompt again after a backspace: with the question as its prompt, the
    // whole question was drawn a second time.
    await terminal.press("x", /x/);
    await terminal.press(BACKSPACE, CHOICES);
    await terminal.enter("y", /Edited\./);
    expect(await timesShown(terminal, "Allow edit of long.txt?")).toBe(1);
    expect(await terminal.exit()).toBe(0);
  });

  it("is ended by Ctrl-C, which interrupts the turn: nothing runs, and the next line is a prompt", async () => {
    const sandbox = freshSandbox();
    model.script([
      reply(toolUse("t1", "bash", { command: "touch made.txt" })),
      reply(text("Nothing was made.")),
    ]);
    const terminal = await startRepl(sandbox, model);
    terminal.type("make a file\r");
    await terminal.waitFor(CHOICES);
    await terminal.press(CTRL_C, /Interrupted by the user\.[\s\S]*› /);
    await terminal.enter("what happened?", /Nothing was made\./);
    expect(existsSync(join(sandbox.workspace, "made.txt"))).toBe(false);
    const messages = onlySession(sandbox).messages;
    expect(messages[2]?.content).toEqual([
      expect.objectContaining({
        tool_use_id: "t1",
        content: "Interrupted by the user when asked; it did not run.",
        is_error: true,
      }),
    ]);
    expect(messages[3]).toEqual({ role: "user", content: "what happened?" });
    expect(await timesShown(terminal, "⏺ bash $ touch made.txt")).toBe(1);
    expect(await terminal.exit()).toBe(0);
  });
});

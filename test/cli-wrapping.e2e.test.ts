// What agentloop prints, read back from a terminal emulator of a given width: /help, --help, a
// notice, a permission question and the worktree question break between words, on rows of their
// own, where a terminal left to itself would have cut words in two at its last column ("appl" /
// "y."); only a word wider than the whole row (a long path) is cut.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USAGE } from "../src/command-line/config.js";
import {
  type FakeModel,
  freshSandbox,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { withRepository } from "./support/git-repository.js";
import { type ScreenRow, screenRows } from "./support/screen.js";
import { openRepl, openTerminal } from "./support/terminal.js";

/** Wide enough that nothing /help prints needs a second row. */
const WIDE = 300;
const LAST_HELP_LINE = /exits too\./;
const YOLO_NOTICE =
  "agentloop: permission mode yolo: commands run without a sandbox and without asking. Deny rules still apply.";

const words = (rows: ScreenRow[]) =>
  rows.flatMap((row) => row.text.split(/\s+/).filter((word) => word !== ""));
const NARROW_TO_WIDE = [60, 80, 120];

/**
 * The words of `rows` cut in two, measured against the same text laid out where nothing needed
 * to break (`whole`): a row the terminal wrapped cuts whatever it cut; a word that comes out as
 * two is cut, unless it is wider than the whole row.
 */
function wordsCut(rows: ScreenRow[], whole: ScreenRow[], columns: number): string[] {
  const shown = words(rows);
  const cut = rows.filter((row) => row.wrapped).map((row) => `(terminal wrap) ${row.text}`);
  let at = 0;
  for (const word of words(whole)) {
    if (shown[at] === word) {
      at += 1;
      continue;
    }
    let joined = "";
    const start = at;
    while (at < shown.length && joined.length < word.length) joined += shown[at++];
    if (joined !== word || word.length <= columns) cut.push(shown.slice(start, at).join(" / "));
  }
  return cut;
}

/** The rows from the first that starts with `first` to the next that matches `last`. */
function between(rows: ScreenRow[], first: string | RegExp, last: RegExp): ScreenRow[] {
  const starts = (row: ScreenRow) =>
    typeof first === "string" ? row.text.startsWith(first) : first.test(row.text);
  const start = rows.findLastIndex(starts);
  const end = rows.findIndex((row, index) => index >= start && last.test(row.text));
  expect(start, `no row starts with ${first}`).toBeGreaterThan(-1);
  expect(end, `no row matches ${last}`).toBeGreaterThan(-1);
  return rows.slice(start, end + 1);
}

describe("the REPL's text at the terminal's width", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  /** The REPL in `sandbox`, in a terminal `columns` wide. */
  const replIn = (sandbox: Sandbox, columns: number, args: string[]) =>
    openRepl({ env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace, args, columns });

  /** The rows of the screen from the first that starts with `first` to the first that matches `last`. */
  async function rowsOf(columns: number, command: string | null, first: string, last: RegExp) {
    const terminal = await replIn(freshSandbox(), columns, ["--permission-mode", "yolo"]);
    if (command) await terminal.enter(command, last);
    const rows = await screenRows(terminal.output(), columns);
    expect(await terminal.exit()).toBe(0);
    const start = rows.findIndex((row) => row.text.startsWith(first));
    const end = rows.findIndex((row, index) => index >= start && last.test(row.text));
    expect(start, `no row starts with ${first}`).toBeGreaterThan(-1);
    expect(end, `no row matches ${last}`).toBeGreaterThan(-1);
    return rows.slice(start, end + 1);
  }

  it("shows /help at 60, 80, 100 and 120 columns broken only between words", async () => {
    const wide = await rowsOf(WIDE, "/help", "/help ", LAST_HELP_LINE);
    const plan = wide.find((row) => row.text.startsWith("/plan "))?.text.trimEnd();
    expect(plan).toMatch(
      /^\/plan +plan mode on or off: the model looks around and proposes a plan for you to approve, changing no file but the plan$/,
    );
    for (const columns of [...NARROW_TO_WIDE, 100]) {
      const narrow = await rowsOf(columns, "/help", "/help ", LAST_HELP_LINE);
      // Every row ends where agentloop ended it, not where the terminal ran out of columns.
      expect(narrow.filter((row) => row.wrapped)).toEqual([]);
      expect(narrow.length).toBeGreaterThan(wide.length);
      expect(words(narrow)).toEqual(words(wide));
      // A command's help goes on under its first word.
      const planRow = narrow.findIndex((row) => row.text.startsWith("/plan "));
      const helpColumn = narrow[planRow]?.text.indexOf("plan mode") ?? -1;
      expect(helpColumn).toBeGreaterThan("/plan".length);
      expect(narrow[planRow + 1]?.text).toMatch(new RegExp(`^ {${helpColumn}}\\S`));
    }
  });

  it("shows a notice at 60, 80, 100 and 120 columns broken between words", async () => {
    for (const columns of [...NARROW_TO_WIDE, 100]) {
      const rows = await rowsOf(columns, null, "agentloop: permission mode yolo", /apply\.\s*$/);
      expect(rows.filter((row) => row.wrapped)).toEqual([]);
      expect(words(rows).join(" ")).toBe(YOLO_NOTICE);
      if (columns === 100) {
        expect(rows.map((row) => row.text.trimEnd())).toEqual([
          "agentloop: permission mode yolo: commands run without a sandbox and without asking. Deny rules still",
          "apply.",
        ]);
      }
    }
  });

  it("shows --help at 60, 80 and 120 columns broken only between words", async () => {
    const helpRows = async (columns: number) => {
      const terminal = openTerminal({
        env: freshSandbox().env,
        cwd: ".",
        args: ["--help"],
        columns,
      });
      expect(await terminal.exited).toBe(0);
      return screenRows(terminal.output(), columns);
    };
    const whole = await helpRows(WIDE);
    expect(words(whole)).toEqual(USAGE.split(/\s+/).filter((word) => word !== ""));
    for (const columns of NARROW_TO_WIDE) {
      const rows = await helpRows(columns);
      expect(wordsCut(rows, whole, columns), `at ${columns} columns`).toEqual([]);
      // A flag's description goes on under its first word.
      const model = rows.findIndex((row) => row.text.startsWith("  --model M "));
      const column = rows[model]?.text.indexOf("model name") ?? -1;
      expect(rows[model + 1]?.text).toMatch(new RegExp(`^ {${column}}\\S`));
    }
  });

  it("asks a permission question at 60, 80 and 120 columns broken only between words", async () => {
    const command = `npm run build-everything-here --workspace=packages/one --workspace=packages/two --if-present`;
    const questionRows = async (columns: number) => {
      model.script([reply(toolUse("b1", "bash", { command })), reply(text("Not built."))]);
      const terminal = await replIn(freshSandbox(), columns, ["--permission-mode", "ask"]);
      await terminal.press("build it\r", /you may say[\s\S]*why: /);
      const rows = between(await screenRows(terminal.output(), columns), "Allow bash", /why:/);
      await terminal.enter("n", /Not built\./);
      expect(await terminal.exit()).toBe(0);
      return rows;
    };
    const whole = await questionRows(WIDE);
    expect(words(whole).join(" ")).toContain("is not known to be read-only)");
    for (const columns of NARROW_TO_WIDE) {
      const rows = await questionRows(columns);
      expect(wordsCut(rows, whole, columns), `at ${columns} columns`).toEqual([]);
    }
  });

  it("asks the worktree question at 60, 80 and 120 columns broken only between words", async () => {
    const worktreeRows = async (columns: number) => {
      model.script([
        reply(toolUse("w1", "bash", { command: "echo from-session > out.txt" })),
        reply(text("Wrote it.")),
      ]);
      const sandbox = withRepository(freshSandbox());
      const worktree = ["--permission-mode", "yolo", "--worktree", "try-a"];
      const terminal = await replIn(sandbox, columns, worktree);
      await terminal.enter("write out.txt", /Wrote it\./);
      await terminal.press("exit\r", /\[Y\]es, \[n\]o:/);
      const rows = between(await screenRows(terminal.output(), columns), "Keep the", /\[Y\]es/);
      await terminal.press("\r", /not committed\./);
      expect(await terminal.exited).toBe(0);
      return { rows, workspace: sandbox.workspace };
    };
    const whole = await worktreeRows(WIDE);
    expect(words(whole.rows).join(" ")).toContain("1 file changed, not committed");
    for (const columns of NARROW_TO_WIDE) {
      const { rows, workspace } = await worktreeRows(columns);
      // Each run has a sandbox of its own: its path, as long as the first's, stands in for it.
      const same = whole.rows.map((row) => ({
        ...row,
        text: row.text.replaceAll(whole.workspace, workspace),
      }));
      expect(wordsCut(rows, same, columns), `at ${columns} columns`).toEqual([]);
    }
  }, 60_000);
});

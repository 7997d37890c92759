// What the REPL prints, read back from a terminal emulator of a given width: /help and a notice
// break between words, on rows of their own, where a terminal left to itself would have cut
// words in two at its last column ("appl" / "y.").

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { type ScreenRow, screenRows } from "./support/screen.js";
import { openRepl } from "./support/terminal.js";

/** Wide enough that nothing /help prints needs a second row. */
const WIDE = 300;
const LAST_HELP_LINE = /exits too\./;
const YOLO_NOTICE =
  "agentloop: permission mode yolo: commands run without a sandbox and without asking. Deny rules still apply.";

const words = (rows: ScreenRow[]) =>
  rows.flatMap((row) => row.text.split(/\s+/).filter((word) => word !== ""));

describe("the REPL's text at the terminal's width", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  /** The rows of the screen from the first that starts with `first` to the first that matches `last`. */
  async function rowsOf(columns: number, command: string | null, first: string, last: RegExp) {
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: ["--permission-mode", "yolo"],
      columns,
    });
    if (command) await terminal.enter(command, last);
    const rows = await screenRows(terminal.output(), columns);
    expect(await terminal.exit()).toBe(0);
    const start = rows.findIndex((row) => row.text.startsWith(first));
    const end = rows.findIndex((row, index) => index >= start && last.test(row.text));
    expect(start, `no row starts with ${first}`).toBeGreaterThan(-1);
    expect(end, `no row matches ${last}`).toBeGreaterThan(-1);
    return rows.slice(start, end + 1);
  }

  it("shows /help at 60, 80 and 100 columns broken only between words", async () => {
    const wide = await rowsOf(WIDE, "/help", "/help ", LAST_HELP_LINE);
    const plan = wide.find((row) => row.text.startsWith("/plan "))?.text.trimEnd();
    expect(plan).toMatch(
      /^\/plan +plan mode on or off: the model looks around and proposes a plan for you to approve, changing no file but the plan$/,
    );
    for (const columns of [60, 80, 100]) {
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

  it("shows a notice at 100 columns broken between words", async () => {
    const rows = await rowsOf(100, null, "agentloop: permission mode yolo", /apply\.\s*$/);
    expect(rows.map((row) => row.text.trimEnd())).toEqual([
      "agentloop: permission mode yolo: commands run without a sandbox and without asking. Deny rules still",
      "apply.",
    ]);
    expect(rows.filter((row) => row.wrapped)).toEqual([]);
    expect(words(rows).join(" ")).toBe(YOLO_NOTICE);
  });
});

// Prose wrapped to a terminal's width between words (src/terminal/wrap.ts): what the REPL's
// commands, notices and status lines print.

import { stripVTControlCharacters } from "node:util";
import stringWidth from "string-width";
import { beforeAll, describe, expect, it } from "vitest";
import { loadTextWidth } from "../src/terminal/text-width.js";
import { beside, columnsOf, wrapText } from "../src/terminal/wrap.js";

// The CLI loads the measures when an output is a terminal; these tests stand for one.
beforeAll(loadTextWidth);

const NOTICE =
  "agentloop: permission mode yolo: commands run without a sandbox and without asking. Deny rules still apply.";
const words = (text: string) => text.split(/\s+/).filter(Boolean);

describe("wrapping prose to a terminal's width", () => {
  it("breaks a notice between words, every row within the width, no word lost or split", () => {
    for (const columns of [40, 60, 80, 100]) {
      const rows = wrapText(NOTICE, columns).split("\n");
      for (const row of rows) expect(stringWidth(row)).toBeLessThanOrEqual(columns);
      expect(words(rows.join(" "))).toEqual(words(NOTICE));
    }
    expect(wrapText(NOTICE, 100).split("\n")).toEqual([
      "agentloop: permission mode yolo: commands run without a sandbox and without asking. Deny rules still",
      "apply.",
    ]);
  });

  it("leaves a line that fits, and every line where the width is unknown, as it is", () => {
    expect(wrapText("short line\n  indented   spaced", 80)).toBe("short line\n  indented   spaced");
    expect(wrapText(NOTICE, undefined)).toBe(NOTICE);
  });

  it("keeps an indented line's rows under its first word", () => {
    const line = `    ${"word ".repeat(20).trim()}`;
    const rows = wrapText(line, 40).split("\n");
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows) expect(row).toMatch(/^ {4}word/);
  });

  it("cuts a word wider than the row where the row ends", () => {
    const path = `/${"a".repeat(70)}/file.ts`;
    const rows = wrapText(`Saved to ${path}`, 40).split("\n");
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(40);
    expect(rows.join("").replace("Saved to", "")).toBe(path);
  });

  it("counts colour codes as nothing and colours every row", () => {
    const dim = (text: string) => `\x1b[2m${text}\x1b[0m`;
    const rows = wrapText(dim("one two three four five six seven"), 14).split("\n");
    expect(rows.map((row) => stripVTControlCharacters(row))).toEqual([
      "one two three",
      "four five six",
      "seven",
    ]);
    for (const row of rows) expect(row.startsWith("\x1b[2m")).toBe(true);
  });

  it("puts the rows of a text beside its label under the text's first column", () => {
    const help =
      "plan mode on or off: the model looks around and proposes a plan for you to approve";
    expect(beside("/plan        ", help, 50).split("\n")).toEqual([
      "/plan        plan mode on or off: the model looks",
      "             around and proposes a plan for you to",
      "             approve",
    ]);
    expect(beside("/plan  ", help, undefined)).toBe(`/plan  ${help}`);
  });

  it("wraps at the width of a terminal only", () => {
    expect(columnsOf({ isTTY: true, columns: 72 })).toBe(72);
    // A pipe, and a pseudo-terminal whose size nobody set.
    expect(columnsOf({ columns: 72 })).toBeUndefined();
    expect(columnsOf({ isTTY: true, columns: 0 })).toBeUndefined();
  });
});

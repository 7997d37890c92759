// The REPL's input history: whole prompts, kept across sessions in a private file, at most
// HISTORY_SIZE of them.

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HISTORY_SIZE, openInputHistory } from "../src/terminal/input-history.js";

let directory: string;
const historyFile = () => {
  directory = mkdtempSync(join(tmpdir(), "agentloop-history-"));
  return join(directory, "state", "history");
};
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe("the input history", () => {
  it("keeps prompts across sessions, newest first, in a file only its owner reads", () => {
    const file = historyFile();
    const first = openInputHistory(file);
    first.add("fix the parser");
    first.add("run the tests");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(openInputHistory(file).entries).toEqual(["run the tests", "fix the parser"]);
  });

  it("keeps a multi-line prompt as one entry", () => {
    const file = historyFile();
    openInputHistory(file).add("line one\nline two");
    expect(openInputHistory(file).entries).toEqual(["line one\nline two"]);
  });

  it("does not repeat a prompt sent twice in a row", () => {
    const file = historyFile();
    const history = openInputHistory(file);
    history.add("again");
    history.add("again");
    expect(readFileSync(file, "utf8")).toBe('"again"\n');
  });

  it("forgets what readline added that was not a prompt", () => {
    const history = openInputHistory(historyFile());
    history.add("make two files");
    // Readline's own additions: the parts of a paste, the answer to a permission question.
    history.entries.unshift("y", "part of a paste");
    history.settle();
    expect(history.entries).toEqual(["make two files"]);
  });

  it(`keeps the last ${HISTORY_SIZE} prompts, and rewrites a longer file to them`, () => {
    const file = historyFile();
    openInputHistory(file).add("first");
    const lines = Array.from({ length: HISTORY_SIZE + 5 }, (_, index) => `"prompt ${index}"\n`);
    writeFileSync(file, lines.join(""));
    const history = openInputHistory(file);
    expect(history.entries).toHaveLength(HISTORY_SIZE);
    expect(history.entries[0]).toBe(`prompt ${HISTORY_SIZE + 4}`);
    expect(history.entries.at(-1)).toBe("prompt 5");
    expect(readFileSync(file, "utf8").split("\n")).toHaveLength(HISTORY_SIZE + 1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("skips a line it cannot read, and works without a file", () => {
    const file = historyFile();
    expect(openInputHistory(file).entries).toEqual([]);
    openInputHistory(file).add("kept");
    writeFileSync(file, `${readFileSync(file, "utf8")}"cut of`);
    expect(openInputHistory(file).entries).toEqual(["kept"]);
  });
});

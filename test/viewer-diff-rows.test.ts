import { describe, expect, it } from "vitest";
import {
  contentRows,
  fileToolView,
  replacementRows,
  unifiedDiffRows,
} from "../src/viewer/page/diff-rows.js";

describe("the file tools' calls as the viewer shows them", () => {
  it("reads an edit's replacements in the order the tool applies them", () => {
    const view = fileToolView("edit", {
      file_path: "src/app.ts",
      old_string: "a",
      new_string: "b",
      replace_all: true,
      edits: [{ old_string: "c", new_string: "d" }],
    });
    expect(view).toEqual({
      tool: "edit",
      path: "src/app.ts",
      replacements: [
        { oldString: "a", newString: "b", replaceAll: true },
        { oldString: "c", newString: "d", replaceAll: false },
      ],
    });
  });

  it.each([
    ["no input", "edit", null],
    ["an array", "edit", ["src/app.ts"]],
    ["no file_path", "edit", { old_string: "a", new_string: "b" }],
    ["an empty file_path", "write", { file_path: "", content: "x" }],
    ["a number for old_string", "edit", { file_path: "a", old_string: 1, new_string: "b" }],
    ["no new_string", "edit", { file_path: "a", old_string: "a" }],
    [
      "replace_all as a string",
      "edit",
      { file_path: "a", old_string: "a", new_string: "b", replace_all: "yes" },
    ],
    ["edits not a list", "edit", { file_path: "a", old_string: "a", new_string: "b", edits: {} }],
    [
      "a malformed edit in edits",
      "edit",
      { file_path: "a", old_string: "a", new_string: "b", edits: [{ old_string: "c" }] },
    ],
    ["no content", "write", { file_path: "a" }],
    ["content as a list", "write", { file_path: "a", content: ["x"] }],
    ["offset as a string", "read", { file_path: "a", offset: "10" }],
    ["a negative limit", "read", { file_path: "a", limit: -1 }],
    ["a fractional offset", "read", { file_path: "a", offset: 1.5 }],
    ["another tool", "bash", { file_path: "a", command: "ls" }],
  ])("leaves a call with %s to the generic view", (_, name, input) => {
    expect(fileToolView(name, input)).toBeNull();
  });

  it.each([
    [{}, null],
    [{ offset: 10, limit: 50 }, "lines 10–59"],
    [{ offset: 10 }, "from line 10"],
    [{ limit: 40 }, "lines 1–40"],
    [{ offset: 0, limit: 5 }, "lines 1–5"],
    [{ offset: 7, limit: 1 }, "line 7"],
  ])("names the lines a read of %j asked for: %j", (range, shown) => {
    expect(fileToolView("read", { file_path: "a.ts", ...range })).toEqual({
      tool: "read",
      path: "a.ts",
      range: shown,
    });
  });

  it("shows old_string's lines removed and new_string's added, \\r\\n line endings split too", () => {
    const rows = replacementRows({
      oldString: "one\r\ntwo",
      newString: "uno\r\ndos\r\n",
      replaceAll: false,
    });
    expect(rows).toEqual([
      { kind: "del", text: "-one" },
      { kind: "del", text: "-two" },
      { kind: "add", text: "+uno" },
      { kind: "add", text: "+dos" },
      { kind: "add", text: "+" },
    ]);
    expect(replacementRows({ oldString: "gone", newString: "", replaceAll: false })).toEqual([
      { kind: "del", text: "-gone" },
    ]);
  });

  it("shows a written file's lines added, its final line break ending the last line", () => {
    expect(contentRows("a\n\nb\n")).toEqual([
      { kind: "add", text: "+a" },
      { kind: "add", text: "+" },
      { kind: "add", text: "+b" },
    ]);
    expect(contentRows("")).toEqual([{ kind: "note", text: "(empty file)" }]);
  });
});

describe("a result that holds a unified diff", () => {
  it("colours the lines from the first hunk and keeps the first line as the headline", () => {
    const result = [
      "Wrote a.ts (3 lines; was 2 lines).",
      "--- a.ts",
      "+++ a.ts",
      "@@ -1,2 +1,3 @@",
      " keep",
      "-old",
      "+new",
      "+--- not a header",
      "\\ No newline at end of file",
    ].join("\n");
    expect(unifiedDiffRows(result)?.map((row) => row.kind)).toEqual([
      "headline",
      "file",
      "file",
      "hunk",
      "ctx",
      "del",
      "add",
      "add",
      "note",
    ]);
  });

  it("stops colouring where the hunks' line counts end", () => {
    const result = "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n[exit code 0]";
    expect(unifiedDiffRows(result)).toEqual([
      { kind: "headline", text: "diff --git a/x b/x" },
      { kind: "hunk", text: "@@ -1 +1 @@" },
      { kind: "del", text: "-a" },
      { kind: "add", text: "+b" },
      { kind: "text", text: "[exit code 0]" },
    ]);
  });

  it("finds no diff in other results", () => {
    expect(unifiedDiffRows("Created a.ts (3 lines).")).toBeNull();
    expect(unifiedDiffRows("mentions @@ -1 +1 @@ mid-line")).toBeNull();
  });
});

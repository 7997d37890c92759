import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createEditTool, type EditInput } from "../src/tools/edit.js";
import { explainMiss } from "../src/tools/edit-match.js";
import { createFileReads, type FileReads } from "../src/tools/file-reads.js";
import { levenshtein, substringDistance } from "../src/tools/similar-lines.js";

const workspaces: string[] = [];
afterEach(() => {
  for (const dir of workspaces.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A workspace holding `file.txt` with `content`, which the model has read. */
function setup(content: string | Buffer = "", options: { read?: boolean } = {}) {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-edit-")));
  workspaces.push(workspace);
  const path = join(workspace, "file.txt");
  writeFileSync(path, content);
  const reads: FileReads = createFileReads();
  if (options.read !== false) reads.remember(path);
  const tool = createEditTool({ workspace, reads });
  const edit = (input: Partial<EditInput>) =>
    tool.run(
      { file_path: "file.txt", old_string: "", new_string: "", ...input },
      { signal: new AbortController().signal },
    );
  return { workspace, path, reads, tool, edit, bytes: () => readFileSync(path) };
}

describe("edit changes exactly the text it is given, and keeps what the file is made of", () => {
  it.each<[string, string | Buffer, Partial<EditInput>, string | Buffer]>([
    [
      "CRLF line endings stay CRLF, though the model writes \\n",
      "one\r\ntwo\r\nthree\r\n",
      { old_string: "two\nthree", new_string: "2\n3\n3.5" },
      "one\r\n2\r\n3\r\n3.5\r\n",
    ],
    [
      "\\r\\n written by the model in a CRLF file counts as a line break too",
      "one\r\ntwo\r\n",
      { old_string: "one\r\ntwo", new_string: "1\r\n2" },
      "1\r\n2\r\n",
    ],
    [
      "\r\n written by the model in a \\n file is a line break as the file writes it",
      "one\ntwo\n",
      { old_string: "one\r\ntwo", new_string: "1\r\n2" },
      "1\n2\n",
    ],
    [
      "a UTF-8 byte order mark stays, and text right after it matches",
      "\uFEFFfirst line\nsecond\n",
      { old_string: "first", new_string: "1st" },
      "\uFEFF1st line\nsecond\n",
    ],
    [
      "non-ASCII text: é, 漢字 and emoji before and inside the match",
      "café 漢字 😀 = 1;\nnaïve 🎉 = 2;\n",
      { old_string: "🎉 = 2", new_string: "🎊 = 漢字" },
      "café 漢字 😀 = 1;\nnaïve 🎊 = 漢字;\n",
    ],
    [
      "replace_all changes every occurrence",
      "let a = 1;\nlet b = a + a;\n",
      { old_string: "a", new_string: "alpha", replace_all: true },
      "let alpha = 1;\nlet b = alpha + alpha;\n",
    ],
    [
      "$& and $1 in new_string arrive as written",
      "price\n",
      { old_string: "price", new_string: "$& costs $1" },
      "$& costs $1\n",
    ],
    [
      "an empty new_string deletes",
      "keep\ndrop me\nkeep\n",
      { old_string: "drop me\n", new_string: "" },
      "keep\nkeep\n",
    ],
    [
      "a file without a final newline stays without one",
      "no newline at the end",
      { old_string: "end", new_string: "end either" },
      "no newline at the end either",
    ],
    [
      "a file that mixes line endings keeps each one",
      "unix\nwindows\r\nunix\n",
      { old_string: "windows\r\nunix", new_string: "dos\r\nlinux" },
      "unix\ndos\r\nlinux\n",
    ],
    [
      "several edits apply in order, each to the text the one before left",
      "function f() {\n  return 1;\n}\n",
      {
        old_string: "return 1;",
        new_string: "const x = 1;\n  return x;",
        edits: [
          { old_string: "const x = 1;", new_string: "const x = 2;" },
          { old_string: "f()", new_string: "g()" },
        ],
      },
      "function g() {\n  const x = 2;\n  return x;\n}\n",
    ],
  ])("%s", async (_, before, input, after) => {
    const { edit, bytes } = setup(before);
    const result = await edit(input);
    expect(result.isError, result.content).toBe(false);
    expect(bytes()).toEqual(Buffer.from(after));
  });
});

describe("edit reports what it changed", () => {
  it("starts with a summary line, then shows the diff", async () => {
    const { edit, path } = setup("a\nb\nc\n");
    const result = await edit({ old_string: "b\n", new_string: "B1\nB2\nB3\n" });
    const [summary, ...diff] = result.content.split("\n");
    expect(summary).toBe(`Edited ${path}: 1 replacement, +3 -1 lines.`);
    expect(diff).toEqual(
      expect.arrayContaining([`--- ${path}`, `+++ ${path}`, "-b", "+B1", "+B2", "+B3"]),
    );
  });

  it("counts every replacement of replace_all and of later edits", async () => {
    const { edit, path } = setup("x x x\ny\n");
    const result = await edit({
      old_string: "x",
      new_string: "z",
      replace_all: true,
      edits: [{ old_string: "y", new_string: "w" }],
    });
    expect(result.content.split("\n")[0]).toBe(`Edited ${path}: 4 replacements, +2 -2 lines.`);
  });

  it("shows the diff without CRLF or BOM noise", async () => {
    const { edit } = setup("\uFEFFa\r\nb\r\n");
    const result = await edit({ old_string: "b", new_string: "c" });
    expect(result.content).not.toMatch(/\r|\uFEFF/);
    expect(result.content).toContain("\n-b\n+c");
  });
});

describe("edit refuses, changes nothing, and says why in a sentence", () => {
  it.each<[string, string, Partial<EditInput>, string]>([
    [
      "old_string equal to new_string",
      "same\n",
      { old_string: "same", new_string: "same" },
      "old_string and new_string are the same, so there is nothing to change.",
    ],
    [
      "an empty old_string",
      "text\n",
      { old_string: "", new_string: "new" },
      "old_string is empty; to create a file or replace all of its content, use the write tool.",
    ],
    [
      "old_string found more than once, without replace_all: how many and where",
      "x = 1;\ny = 2;\nx = 1;\nz = 3;\nx = 1;\n",
      { old_string: "x = 1;", new_string: "x = 9;" },
      "old_string occurs 3 times in PATH (lines 1, 3 and 5). Include more of the surrounding text so that it matches once, or set replace_all to change every occurrence.",
    ],
    [
      "overlapping occurrences count as more than one",
      "aaa\n",
      { old_string: "aa", new_string: "b" },
      "old_string occurs 2 times in PATH (line 1). Include more of the surrounding text so that it matches once, or set replace_all to change every occurrence.",
    ],
    [
      "the second of several edits failing: which one, and that nothing was written",
      "alpha\nbeta\n",
      {
        old_string: "alpha",
        new_string: "ALPHA",
        edits: [{ old_string: "betta", new_string: "BETA" }],
      },
      "Edit 2 (edits[0]) of 2 failed: old_string was not found in PATH. The most similar text in the file, numbered as by read:\n     2\tbeta\nCopy old_string exactly from the file. Line numbers are those of the text after edit 1. Nothing was changed: the edits apply all together or not at all.",
    ],
    [
      "the first of several edits failing",
      "beta\nbeta\n",
      { old_string: "beta", new_string: "b", edits: [{ old_string: "b", new_string: "a" }] },
      "Edit 1 of 2 failed: old_string occurs 2 times in PATH (lines 1 and 2). Include more of the surrounding text so that it matches once, or set replace_all to change every occurrence. Nothing was changed: the edits apply all together or not at all.",
    ],
    [
      "a later edit that is malformed",
      "alpha\n",
      { old_string: "alpha", new_string: "a", edits: [{ old_string: "x" } as never] },
      "edits[0] must be an object with the strings old_string and new_string, and replace_all true or false if given.",
    ],
    [
      "a later edit with old_string equal to new_string, before anything is matched",
      "alpha\n",
      { old_string: "alpha", new_string: "a", edits: [{ old_string: "b", new_string: "b" }] },
      "Edit 2 (edits[0]) of 2 failed: old_string and new_string are the same, so there is nothing to change. Nothing was changed: the edits apply all together or not at all.",
    ],
    [
      "edits that undo each other",
      "alpha\n",
      {
        old_string: "alpha",
        new_string: "beta",
        edits: [{ old_string: "beta", new_string: "alpha" }],
      },
      "These edits would leave PATH exactly as it is; nothing was changed.",
    ],
  ])("%s", async (_, before, input, message) => {
    const { edit, bytes, path } = setup(before);
    const result = await edit(input);
    expect(result).toEqual({ content: message.replaceAll("PATH", path), isError: true });
    expect(bytes().toString()).toBe(before);
  });

  it("a file the model has not read", async () => {
    const { edit, path, bytes } = setup("secret plans\n", { read: false });
    const result = await edit({ old_string: "secret", new_string: "public" });
    expect(result).toEqual({
      content: `${path} exists and has not been read in this session; read it first, so that nothing in it is lost.`,
      isError: true,
    });
    expect(bytes().toString()).toBe("secret plans\n");
  });

  it("a file changed on disk since the model read it", async () => {
    const { edit, path, bytes } = setup("version 1\n");
    writeFileSync(path, "version 2, by the user\n");
    const result = await edit({ old_string: "version", new_string: "v" });
    expect(result).toEqual({
      content: `${path} changed on disk since it was last read (someone else edited it); read it again before changing it.`,
      isError: true,
    });
    expect(bytes().toString()).toBe("version 2, by the user\n");
  });

  it("a file deleted after the model read it", async () => {
    const { edit, path } = setup("here today\n");
    unlinkSync(path);
    const result = await edit({ old_string: "today", new_string: "tomorrow" });
    expect(result).toEqual({
      content: `${path} does not exist; to create a file, use the write tool.`,
      isError: true,
    });
  });

  it("a directory", async () => {
    const { edit, workspace } = setup();
    mkdirSync(join(workspace, "sub"));
    const result = await edit({ file_path: "sub", old_string: "a", new_string: "b" });
    expect(result.content).toBe(`${join(workspace, "sub")} is a directory, not a file.`);
  });

  it("a file that is not UTF-8 text", async () => {
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x61]);
    const { edit, path, bytes } = setup(binary);
    const result = await edit({ old_string: "PNG", new_string: "GIF" });
    expect(result.content).toBe(
      `${path} is not UTF-8 text, so edit cannot change it without damaging it.`,
    );
    expect(bytes()).toEqual(binary);
  });

  it("a read-only file (renaming over it would ignore its mode)", async () => {
    const { edit, path, bytes } = setup("frozen\n");
    chmodSync(path, 0o444);
    const result = await edit({ old_string: "frozen", new_string: "thawed" });
    expect(result.content).toBe(`${path} is read-only (mode 0444), so edit will not change it.`);
    expect(bytes().toString()).toBe("frozen\n");
  });
});

describe("a missing old_string is explained so that the next try can succeed", () => {
  it.each<[string, string, string, string]>([
    [
      "a typo: the most similar lines, with their numbers",
      "import x from 'x';\n\nfunction greet(name) {\n  return 'hello ' + name;\n}\n",
      "return 'helo ' + name;",
      "The most similar text in the file, numbered as by read:\n     4\t  return 'hello ' + name;\nCopy old_string exactly from the file.",
    ],
    [
      "a block with one wrong line: that block, numbered",
      "a();\nb();\nfunction f() {\n  one();\n  two();\n}\nc();\n",
      "function f() {\n  one();\n  too();\n}",
      "The most similar text in the file, numbered as by read:\n     3\tfunction f() {\n     4\t  one();\n     5\t  two();\n     6\t}\nCopy old_string exactly from the file.",
    ],
    [
      "trailing spaces in the file",
      "first\nsecond  \nthird\n",
      "first\nsecond\nthird",
      'old_string differs from the text at line 1 only in trailing whitespace (at the ends of lines), first at line 2: the file has "second  " where old_string has "second". Copy the file\'s text exactly.',
    ],
    [
      "tabs in the file, spaces in old_string",
      "if (x) {\n\treturn;\n}\n",
      "if (x) {\n    return;\n}",
      'old_string differs from the text at line 1 only in indentation (the file indents with tabs, old_string with spaces), first at line 2: the file has "\\treturn;" where old_string has "    return;". Copy the file\'s text exactly.',
    ],
    [
      "a different depth of indentation",
      "class A {\n    m() {\n        go();\n    }\n}\n",
      "  m() {\n    go();\n  }",
      'old_string differs from the text at line 2 only in indentation, first at line 3: the file has "        go();" where old_string has "    go();". Copy the file\'s text exactly.',
    ],
    [
      "spacing inside a line",
      "const sum = a + b;\n",
      "const sum = a +  b;",
      'old_string differs from the text at line 1 only in whitespace, first at line 1: the file has "const sum = a + b;" where old_string has "const sum = a +  b;". Copy the file\'s text exactly.',
    ],
    [
      "a file that mixes line endings, and old_string without \\r",
      "one\ntwo\r\nthree\n",
      "two\nthree",
      "The file mixes \\n and \\r\\n line endings, and old_string matches at line 2 only if they are ignored; end each line of old_string as the file does there.",
    ],
    [
      "upper and lower case",
      "Hello World\n",
      "hello world",
      'old_string differs from the text at line 1 only in upper and lower case, first at line 1: the file has "Hello World" where old_string has "hello world". Copy the file\'s text exactly.',
    ],
    [
      "line numbers copied from a numbered listing",
      "alpha\nbeta\ngamma\n",
      "     2\tbeta\n     3\tgamma",
      "old_string starts its lines with line numbers, as in a listing; without them it matches at line 2. Leave the numbers out.",
    ],
    [
      "nothing alike",
      "alpha\nbeta\n",
      "completely unrelated text",
      "No part of the file looks like it; read the file again to see what it holds now.",
    ],
    ["an empty file", "", "anything", "The file is empty; use the write tool to give it content."],
  ])("%s", async (_, before, oldString, explanation) => {
    const { edit, path, bytes } = setup(before);
    const result = await edit({ old_string: oldString, new_string: "replacement" });
    expect(result).toEqual({
      content: `old_string was not found in ${path}. ${explanation}`,
      isError: true,
    });
    expect(bytes().toString()).toBe(before);
  });

  it("a CRLF file is matched with \\n, so only other differences are reported", async () => {
    const { edit } = setup("if (x) {\r\n\treturn;\r\n}\r\n");
    const result = await edit({ old_string: "if (x) {\n  return;\n}", new_string: "" });
    expect(result.content).toContain("only in indentation (the file indents with tabs");
    expect(result.content).not.toContain("\\r");
  });

  it("shows at most a few places", async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `value_${i} = compute(${i});`);
    const { edit } = setup(`${lines.join("\n")}\n`);
    const result = await edit({ old_string: "value_7 = compute(70);", new_string: "" });
    const shown = result.content.split("\n").filter((line) => /^ *\d+\t/.test(line));
    expect(shown).toHaveLength(3);
    expect(shown[0]).toBe("     8\tvalue_7 = compute(7);");
  });

  it("gives up comparing a huge file of lines all equally unlike old_string, and says where", () => {
    // mulberry32: the same pseudo-random lines on every run.
    let seed = 1;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    };
    const line = () =>
      Array.from({ length: 80 }, () => "abcdefghijklmnop (){};"[Math.floor(random() * 22)]).join(
        "",
      );
    const text = Array.from({ length: 30_000 }, line).join("\n");
    const explanation = explainMiss(text, `${line()}\n${line()}`);
    expect(explanation).toMatch(
      /^No part of the file looks like it \(the file is too long to compare in full; lines after \d+ were not compared\); read the file again to see what it holds now\.$/,
    );
  });

  it("stays quick in a large file", () => {
    const lines = Array.from(
      { length: 20_000 },
      (_, i) => `  const item${i} = await load("${i}", { retries: ${i % 7}, cache: true });`,
    );
    const block = lines.slice(12_000, 12_010).join("\n").replace("retries", "retry");
    const started = Date.now();
    const explanation = explainMiss(lines.join("\n"), block);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(explanation).toContain(" 12001\t");
  });
});

describe("the edit distances behind similar lines", () => {
  const text = fc.string({ unit: fc.constantFrom("a", "b", "c", "é", "😀"), maxLength: 12 });
  const limit = fc.oneof(fc.nat(8), fc.constant(Number.POSITIVE_INFINITY));

  it("levenshtein is the textbook distance, or limit + 1 when that is larger", () => {
    fc.assert(
      fc.property(text, text, limit, (a, b, max) => {
        expect(levenshtein(a, b, max)).toBe(Math.min(naiveDistance(a, b, false), max + 1));
      }),
      { numRuns: 2_000 },
    );
  });

  it("substringDistance is the distance to the nearest part of the line", () => {
    fc.assert(
      fc.property(text, text, limit, (needle, line, max) => {
        expect(substringDistance(needle, line, max)).toBe(
          Math.min(naiveDistance(needle, line, true), max + 1),
        );
      }),
      { numRuns: 2_000 },
    );
  });
});

/** The full table, row by row; with `anywhere`, `a` may match any part of `b`. */
function naiveDistance(a: string, b: string, anywhere: boolean): number {
  const table = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) =>
      i === 0 ? (anywhere ? 0 : j) : j === 0 ? i : 0,
    ),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = table[i] as number[];
      const above = table[i - 1] as number[];
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
  }
  const last = table[a.length] as number[];
  return anywhere ? Math.min(...last) : (last[b.length] as number);
}

describe("edit writes the file safely", () => {
  it("keeps the file's mode", async () => {
    const { edit, path } = setup("#!/bin/sh\necho hi\n");
    chmodSync(path, 0o751);
    await edit({ old_string: "hi", new_string: "hello" });
    expect(statSync(path).mode & 0o7777).toBe(0o751);
  });

  it("leaves no temporary file behind, whether it writes or refuses", async () => {
    const { edit, workspace } = setup("a\n");
    await edit({ old_string: "a", new_string: "b" });
    await edit({ old_string: "missing", new_string: "c" });
    expect(readdirSync(workspace)).toEqual(["file.txt"]);
  });

  it("writes through a symbolic link, which stays a link", async () => {
    const { reads, workspace, path } = setup("target text\n");
    const link = join(workspace, "link.txt");
    symlinkSync(path, link);
    reads.remember(link);
    const tool = createEditTool({ workspace, reads });
    const result = await tool.run(
      { file_path: "link.txt", old_string: "target", new_string: "changed" },
      { signal: new AbortController().signal },
    );
    expect(result.isError, result.content).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("changed text\n");
    expect(readdirSync(workspace).sort()).toEqual(["file.txt", "link.txt"]);
    expect(realpathSync(link)).toBe(path);
  });

  it("remembers the file as written, so the next edit needs no new read", async () => {
    const { edit, bytes } = setup("one\n");
    expect((await edit({ old_string: "one", new_string: "two" })).isError).toBe(false);
    expect((await edit({ old_string: "two", new_string: "three" })).isError).toBe(false);
    expect(bytes().toString()).toBe("three\n");
  });

  it("writes nothing when the turn was interrupted before the write", async () => {
    const { tool, bytes, path } = setup("calm\n");
    const controller = new AbortController();
    controller.abort();
    const result = await tool.run(
      { file_path: "file.txt", old_string: "calm", new_string: "storm" },
      { signal: controller.signal },
    );
    expect(result).toEqual({
      content: `Interrupted by the user; ${path} is unchanged.`,
      isError: true,
    });
    expect(bytes().toString()).toBe("calm\n");
  });
});

describe("edit tells the permission check what it would do", () => {
  it("names the file it changes, as the model wrote it", () => {
    const { tool } = setup();
    expect(tool.files?.({ file_path: "~/notes.md", old_string: "a", new_string: "b" })).toEqual([
      { path: "~/notes.md", change: true },
    ]);
  });

  it("previews the diff without writing", async () => {
    const { tool, path, bytes } = setup("before\n");
    const preview = await tool.preview?.({
      file_path: path,
      old_string: "before",
      new_string: "after",
    });
    expect(preview).toBe(`--- ${path}\n+++ ${path}\n@@ -1,1 +1,1 @@\n-before\n+after`);
    expect(bytes().toString()).toBe("before\n");
  });

  it("previews the error the edit would give", async () => {
    const { tool, path } = setup("text\n", { read: false });
    const preview = await tool.preview?.({ file_path: path, old_string: "t", new_string: "T" });
    expect(preview).toContain("has not been read in this session");
  });

  it("has a short definition", () => {
    const { tool } = setup();
    const definition = {
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    };
    expect(Buffer.byteLength(JSON.stringify(definition))).toBeLessThan(720);
  });
});

import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFileReads } from "../src/tools/file-reads.js";
import { createReadTool } from "../src/tools/read.js";
import { countChangedLines, unifiedDiff } from "../src/tools/unified-diff.js";
import { createWriteTool, type WriteInput } from "../src/tools/write.js";

const workspaces: string[] = [];
afterEach(() => {
  for (const dir of workspaces.splice(0)) {
    chmodTree(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Makes every directory writable again, so a test's read-only directory can be removed. */
function chmodTree(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) chmodTree(join(dir, entry.name));
  }
}

/** A fresh workspace holding `files`, with a write tool and a read tool sharing one record. */
function setup(files: Record<string, string> = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-write-")));
  workspaces.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const reads = createFileReads();
  const signal = new AbortController().signal;
  const tool = createWriteTool({ workspace: root, reads });
  const reader = createReadTool({ workspace: root, reads });
  return {
    root,
    reads,
    tool,
    write: (input: WriteInput) => tool.run(input, { signal }),
    read: (file_path: string) => reader.run({ file_path }, { signal }),
  };
}

const isRoot = process.getuid?.() === 0;

describe("write creates files", () => {
  it("creates a new file and the directories it needs, with no read first", async () => {
    const { root, write } = setup();
    const result = await write({ file_path: "a/b/c.txt", content: "one\ntwo\n" });
    expect(result).toEqual({ content: `Created ${root}/a/b/c.txt (2 lines).`, isError: false });
    expect(readFileSync(join(root, "a/b/c.txt"), "utf8")).toBe("one\ntwo\n");
  });

  it.each([
    { content: "", lines: "0 lines" },
    { content: "one", lines: "1 line" },
    { content: "one\n", lines: "1 line" },
    { content: "one\n\n", lines: "2 lines" },
  ])(
    "counts $content.length characters as $lines, as read numbers them",
    async ({ content, lines }) => {
      const { root, write } = setup();
      expect((await write({ file_path: "f.txt", content })).content).toBe(
        `Created ${root}/f.txt (${lines}).`,
      );
    },
  );

  it("gives a new file Node's default mode: 0o666 less the umask", async () => {
    const { root, write } = setup();
    await write({ file_path: "new.txt", content: "x" });
    const umask = process.umask();
    expect(statSync(join(root, "new.txt")).mode & 0o777).toBe(0o666 & ~umask);
  });

  it("remembers what it wrote, so the model may write the file again without reading it", async () => {
    const { root, reads, write } = setup();
    await write({ file_path: "f.txt", content: "first\n" });
    expect(reads.staleReason(join(root, "f.txt"))).toBeNull();
    expect((await write({ file_path: "f.txt", content: "second\n" })).isError).toBe(false);
  });
});

describe("write replaces a file the model has read, and shows what changed", () => {
  it("shows a small change as a diff under the line counts", async () => {
    const { root, read, write } = setup({ "f.txt": "one\ntwo\nthree\n" });
    await read("f.txt");
    const result = await write({ file_path: "f.txt", content: "one\n2\nthree\nfour\n" });
    const path = `${root}/f.txt`;
    expect(result).toEqual({
      content: [
        `Wrote ${path} (4 lines; was 3 lines).`,
        `--- ${path}`,
        `+++ ${path}`,
        "@@ -1,3 +1,4 @@",
        " one",
        "-two",
        "+2",
        " three",
        "+four",
      ].join("\n"),
      isError: false,
    });
    expect(readFileSync(path, "utf8")).toBe("one\n2\nthree\nfour\n");
  });

  it("shows only the line counts when more than 40 lines changed", async () => {
    const before = Array.from({ length: 100 }, (_, i) => `old ${i}\n`).join("");
    const after = Array.from({ length: 100 }, (_, i) => `new ${i}\n`).join("");
    const { root, read, write } = setup({ "f.txt": before });
    await read("f.txt");
    expect((await write({ file_path: "f.txt", content: after })).content).toBe(
      `Wrote ${root}/f.txt (100 lines; was 100 lines).`,
    );
  });

  it("says when the new content is the same as the old", async () => {
    const { root, read, write } = setup({ "f.txt": "same\n" });
    await read("f.txt");
    expect((await write({ file_path: "f.txt", content: "same\n" })).content).toBe(
      `Wrote ${root}/f.txt (1 line; was 1 line). The content is the same as before.`,
    );
  });

  it("keeps an executable script executable", async () => {
    const { root, read, write } = setup({ "run.sh": "#!/bin/sh\necho old\n" });
    chmodSync(join(root, "run.sh"), 0o755);
    await read("run.sh");
    await write({ file_path: "run.sh", content: "#!/bin/sh\necho new\n" });
    expect(statSync(join(root, "run.sh")).mode & 0o777).toBe(0o755);
  });

  it("writes through a symbolic link to the file it points to, keeping the link", async () => {
    const { root, read, write } = setup({ "real.txt": "old\n" });
    symlinkSync("real.txt", join(root, "link.txt"));
    await read("link.txt");
    expect((await write({ file_path: "link.txt", content: "new\n" })).isError).toBe(false);
    expect(lstatSync(join(root, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, "real.txt"), "utf8")).toBe("new\n");
  });
});

describe("write refuses to lose anything", () => {
  it.each([
    { what: "a file the model has not read", prepare: () => {} },
    {
      what: "a file changed on disk since it was read (new content)",
      prepare: async (path: string, read: () => Promise<unknown>) => {
        await read();
        writeFileSync(path, "someone else's longer text\n");
      },
    },
    {
      what: "a file touched since it was read (same size, later time)",
      prepare: async (path: string, read: () => Promise<unknown>) => {
        await read();
        const later = new Date(Date.now() + 60_000);
        utimesSync(path, later, later);
      },
    },
  ])(
    "refuses to overwrite $what, with the record's sentence, and leaves it alone",
    async ({ prepare }) => {
      const { root, reads, read, write } = setup({ "f.txt": "original\n" });
      const path = join(root, "f.txt");
      await prepare(path, () => read("f.txt"));
      const reason = reads.staleReason(path);
      const before = readFileSync(path, "utf8");
      expect(reason).not.toBeNull();
      expect(await write({ file_path: "f.txt", content: "model's text\n" })).toEqual({
        content: reason,
        isError: true,
      });
      expect(readFileSync(path, "utf8")).toBe(before);
    },
  );

  it.each([
    {
      what: "a directory",
      path: "src",
      says: "ROOT/src is a directory; give the path of a file to write.",
    },
    {
      what: "a path ending in /",
      path: "new/",
      says: "new/ names a directory; give the path of a file.",
    },
    {
      what: "a path through a file",
      path: "src/a.ts/b.ts",
      says: "Could not write ROOT/src/a.ts/b.ts: a part of the path is a file, not a directory.",
    },
  ])("refuses $what, with a sentence", async ({ path, says }) => {
    const { root, write } = setup({ "src/a.ts": "a\n" });
    expect(await write({ file_path: path, content: "x" })).toEqual({
      content: says.replace("ROOT", root),
      isError: true,
    });
  });
});

describe("write is atomic", () => {
  it("leaves no temporary file beside the one it wrote", async () => {
    const { root, read, write } = setup({ "dir/f.txt": "old\n" });
    await read("dir/f.txt");
    await write({ file_path: "dir/f.txt", content: "new\n" });
    await write({ file_path: "dir/g.txt", content: "new\n" });
    expect(readdirSync(join(root, "dir")).sort()).toEqual(["f.txt", "g.txt"]);
  });

  it.skipIf(isRoot)(
    "fails with a sentence in a read-only directory, leaving the file and no temporary file",
    async () => {
      const { root, read, write } = setup({ "ro/f.txt": "old\n" });
      await read("ro/f.txt");
      chmodSync(join(root, "ro"), 0o555);
      expect(await write({ file_path: "ro/f.txt", content: "new\n" })).toEqual({
        content: `Could not write ${root}/ro/f.txt: permission denied.`,
        isError: true,
      });
      expect(readFileSync(join(root, "ro/f.txt"), "utf8")).toBe("old\n");
      expect(readdirSync(join(root, "ro"))).toEqual(["f.txt"]);
    },
  );
});

describe("write's preview, for the person asked to approve it", () => {
  it("shows a new file's name, size and first 20 lines", async () => {
    const { root, tool } = setup();
    const content = Array.from({ length: 25 }, (_, i) => `line ${i + 1}\n`).join("");
    const preview = await tool.preview?.({ file_path: "new.txt", content });
    const first = Array.from({ length: 20 }, (_, i) => `+line ${i + 1}`);
    expect(preview).toBe(
      [`new file ${root}/new.txt, 25 lines`, ...first, "[... 5 more lines]"].join("\n"),
    );
  });

  it("shows the diff an overwrite would make, without writing", async () => {
    const { root, tool } = setup({ "f.txt": "a\nb\n" });
    const path = `${root}/f.txt`;
    expect(await tool.preview?.({ file_path: "f.txt", content: "a\nc\n" })).toBe(
      [`--- ${path}`, `+++ ${path}`, "@@ -1,2 +1,2 @@", " a", "-b", "+c"].join("\n"),
    );
    expect(readFileSync(path, "utf8")).toBe("a\nb\n");
  });

  it("says when a write would change nothing", async () => {
    const { root, tool } = setup({ "f.txt": "a\n" });
    expect(await tool.preview?.({ file_path: "f.txt", content: "a\n" })).toBe(
      `no change to ${root}/f.txt (1 line)`,
    );
  });
});

describe("write as a tool", () => {
  it("changes the file it names, as the model wrote it, and is not read-only", () => {
    const { tool } = setup();
    expect(tool.files?.({ file_path: "src/a.ts", content: "" })).toEqual([
      { path: "src/a.ts", change: true },
    ]);
    expect(tool.isReadOnly?.({ file_path: "src/a.ts", content: "" }) ?? false).toBe(false);
  });

  it("has a short definition with file_path and content required", () => {
    const { tool } = setup();
    const definition = {
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    };
    expect(tool.name).toBe("write");
    expect(tool.inputSchema.required).toEqual(["file_path", "content"]);
    expect(JSON.stringify(definition).length).toBeLessThan(500);
  });
});

describe("unifiedDiff, the diff write and edit show", () => {
  const numbered = (count: number, word = "line") =>
    Array.from({ length: count }, (_, i) => `${word} ${i + 1}\n`).join("");

  it("is empty for equal texts", () => {
    expect(unifiedDiff("f", "a\n", "a\n")).toBe("");
  });

  it("has ---/+++ headers and @@ hunks with three lines of context", () => {
    const after = numbered(20).replace("line 10\n", "line ten\n");
    expect(unifiedDiff("f.txt", numbered(20), after)).toBe(
      [
        "--- f.txt",
        "+++ f.txt",
        "@@ -7,7 +7,7 @@",
        " line 7",
        " line 8",
        " line 9",
        "-line 10",
        "+line ten",
        " line 11",
        " line 12",
        " line 13",
      ].join("\n"),
    );
  });

  it("takes the context asked for", () => {
    const after = numbered(20).replace("line 10\n", "line ten\n");
    expect(unifiedDiff("f", numbered(20), after, { context: 0 })).toBe(
      ["--- f", "+++ f", "@@ -10,1 +10,1 @@", "-line 10", "+line ten"].join("\n"),
    );
  });

  it("marks a last line without a newline", () => {
    expect(unifiedDiff("f", "a\nb", "a\nb\n")).toBe(
      ["--- f", "+++ f", "@@ -1,2 +1,2 @@", " a", "-b", "\\ No newline at end of file", "+b"].join(
        "\n",
      ),
    );
  });

  it("is cut after maxLines lines below the headers, with a note", () => {
    const diff = unifiedDiff("f", "", numbered(10), { maxLines: 4 });
    expect(diff).toBe(
      [
        "--- f",
        "+++ f",
        "@@ -0,0 +1,10 @@",
        "+line 1",
        "+line 2",
        "+line 3",
        "[... 7 more lines of diff not shown]",
      ].join("\n"),
    );
  });

  it("cuts a very long line", () => {
    const diff = unifiedDiff("f", "", `${"x".repeat(1_000)}\n`);
    expect(diff.split("\n")[3]).toBe(`+${"x".repeat(499)} [... line cut: 1,000 characters]`);
  });

  it("shows a rewrite too large to diff quickly as every line removed and added", () => {
    const diff = unifiedDiff("f", numbered(5_000, "old"), numbered(5_000, "new"), { maxLines: 3 });
    expect(diff).toBe(
      [
        "--- f",
        "+++ f",
        "@@ -1,5000 +1,5000 @@",
        "-old 1",
        "-old 2",
        "[... 9,998 more lines of diff not shown]",
      ].join("\n"),
    );
  });

  it("counts changed lines, or says there are more than asked about", () => {
    expect(countChangedLines("a\nb\nc\n", "a\nB\nc\nd\n")).toBe(3);
    expect(countChangedLines(numbered(100, "old"), numbered(100, "new"), 40)).toBeNull();
    expect(countChangedLines("same", "same")).toBe(0);
  });
});

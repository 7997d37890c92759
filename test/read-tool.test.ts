import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFileReads, type FileReads } from "../src/tools/file-reads.js";
import { createReadTool, type ReadInput } from "../src/tools/read.js";

const workspaces: string[] = [];
afterEach(() => {
  for (const dir of workspaces.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh workspace holding `files` (path → content), and a read tool working in it. */
function setup(files: Record<string, string | Buffer> = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-read-")));
  workspaces.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const reads = createFileReads();
  const tool = createReadTool({ workspace: root, reads });
  const read = (input: ReadInput) => tool.run(input, { signal: new AbortController().signal });
  return { root, reads, tool, read };
}

/** Lines "line FROM" to "line TO", numbered as the tool numbers them. */
function numbered(from: number, to: number): string {
  const lines: string[] = [];
  for (let n = from; n <= to; n++) lines.push(`${String(n).padStart(6)}\tline ${n}`);
  return lines.join("\n");
}

function textOfLines(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join("");
}

describe("read shows part of a text file with numbered lines", () => {
  it.each([
    {
      what: "the whole of a short file",
      offset: undefined,
      limit: undefined,
      shows: numbered(1, 10),
    },
    {
      what: "the first part, and where to read on",
      offset: undefined,
      limit: 3,
      shows: `${numbered(1, 3)}\n[lines 1-3 of 10 shown; read on with offset 4]`,
    },
    {
      what: "a part in the middle",
      offset: 4,
      limit: 2,
      shows: `${numbered(4, 5)}\n[lines 4-5 of 10 shown; read on with offset 6]`,
    },
    {
      what: "a part that ends exactly at the end, with no note",
      offset: 8,
      limit: 3,
      shows: numbered(8, 10),
    },
    { what: "the last line alone", offset: 10, limit: 1, shows: numbered(10, 10) },
    {
      what: "one line in the middle",
      offset: 5,
      limit: 1,
      shows: `${numbered(5, 5)}\n[line 5 of 10 shown; read on with offset 6]`,
    },
    {
      what: "how many lines there are, for an offset past the end",
      offset: 11,
      limit: undefined,
      shows: "ROOT/ten.txt has 10 lines; offset 11 is past the end.",
    },
    {
      what: "from the first line for offset 0",
      offset: 0,
      limit: 2,
      shows: `${numbered(1, 2)}\n[lines 1-2 of 10 shown; read on with offset 3]`,
    },
  ])("shows $what", async ({ offset, limit, shows }) => {
    const { root, read } = setup({ "ten.txt": textOfLines(10) });
    const result = await read({ file_path: "ten.txt", offset, limit });
    expect(result).toEqual({ content: shows.replace("ROOT", root), isError: false });
  });

  it.each([
    {
      what: "CRLF line endings are not shown",
      content: "one\r\ntwo\r\n",
      shows: "     1\tone\n     2\ttwo",
    },
    {
      what: "a byte order mark is not shown",
      content: "\uFEFFone\ntwo\n",
      shows: "     1\tone\n     2\ttwo",
    },
    {
      what: "a last line without a newline is a line",
      content: "one\ntwo",
      shows: "     1\tone\n     2\ttwo",
    },
    {
      what: "empty lines are lines",
      content: "\n\nthree\n",
      shows: "     1\t\n     2\t\n     3\tthree",
    },
    { what: "an empty file says so", content: "", shows: "(empty file)" },
    {
      what: "a file holding only a byte order mark is empty",
      content: "\uFEFF",
      shows: "(empty file)",
    },
    {
      what: "a few bytes of invalid UTF-8 in text become U+FFFD",
      content: Buffer.from("caf\xe9 au lait\n", "latin1"),
      shows: "     1\tcaf\uFFFD au lait",
    },
  ])("$what", async ({ content, shows }) => {
    const { read } = setup({ "file.txt": content });
    expect(await read({ file_path: "file.txt" })).toEqual({ content: shows, isError: false });
  });

  it("numbers lines past 999,999 in wider columns, as cat -n does", async () => {
    const { read } = setup({ "many.txt": "\n".repeat(1_000_001) });
    const result = await read({ file_path: "many.txt", offset: 999_999, limit: 2 });
    expect(result.content).toBe(
      "999999\t\n1000000\t\n[lines 999,999-1,000,000 of 1,000,001 shown; read on with offset 1,000,001]",
    );
  });

  it("refuses a negative offset or a limit below 1", async () => {
    const { read } = setup({ "ten.txt": textOfLines(10) });
    expect(await read({ file_path: "ten.txt", offset: -5 })).toEqual({
      content: "offset is a line number, counted from 1.",
      isError: true,
    });
    expect(await read({ file_path: "ten.txt", limit: 0 })).toEqual({
      content: "limit is a number of lines, at least 1.",
      isError: true,
    });
  });
});

describe("read keeps each result bounded", () => {
  it("shows at most 2,000 lines by default", async () => {
    const { read } = setup({ "long.txt": textOfLines(5_234) });
    const result = await read({ file_path: "long.txt" });
    expect(result.content).toBe(
      `${numbered(1, 2_000)}\n[lines 1-2,000 of 5,234 shown; read on with offset 2,001]`,
    );
  });

  it("shows at most 50,000 bytes of whole lines, counting multi-byte characters as bytes", async () => {
    const line = "€".repeat(100); // 300 bytes of UTF-8, 100 characters
    const { read } = setup({ "euros.txt": `${line}\n`.repeat(1_000) });
    const result = await read({ file_path: "euros.txt" });
    const [body = "", note] = result.content.split(/\n(?=\[)/);
    const lines = body.split("\n");
    expect(lines.every((shown, i) => shown === `${String(i + 1).padStart(6)}\t${line}`)).toBe(true);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(50_000);
    expect(Buffer.byteLength(body)).toBeGreaterThan(50_000 - 310);
    expect(note).toBe(
      `[lines 1-${lines.length} of 1,000 shown; read on with offset ${lines.length + 1}]`,
    );
  });

  it("cuts a line longer than 2,000 characters and says how long it was", async () => {
    const { read } = setup({ "wide.txt": `short\n${"x".repeat(5_000)}\nend\n` });
    const result = await read({ file_path: "wide.txt" });
    expect(result.content).toBe(
      `     1\tshort\n     2\t${"x".repeat(2_000)} [... line cut: 2,000 of 5,000 characters shown]\n     3\tend`,
    );
  });

  it("counts characters, not bytes or UTF-16 units, when it cuts a long line", async () => {
    const { read } = setup({ "emoji.txt": `${"😀".repeat(3_000)}\r\n` });
    const result = await read({ file_path: "emoji.txt" });
    expect(result.content).toBe(
      `     1\t${"😀".repeat(2_000)} [... line cut: 2,000 of 3,000 characters shown]`,
    );
  });

  it("reads the start of a 200 MB file without reading the rest", async () => {
    const { root, read } = setup({ "huge.log": textOfLines(1_000) });
    execFileSync("truncate", ["-s", "200M", join(root, "huge.log")]);
    const result = await read({ file_path: "huge.log", limit: 3 });
    expect(result.content).toBe(
      `${numbered(1, 3)}\n[lines 1-3 shown; the file goes on (209,715,200 bytes in all); read on with offset 4]`,
    );
  });

  it("streams to a far line of a 200 MB file, and measures a 200 MB line without holding it", async () => {
    const { root, read } = setup({ "huge.log": textOfLines(1_000) });
    execFileSync("truncate", ["-s", "200M", join(root, "huge.log")]);
    const rest = 200 * 1024 * 1024 - Buffer.byteLength(textOfLines(1_000));
    const result = await read({ file_path: "huge.log", offset: 1_000 });
    expect(result.content).toBe(
      `${numbered(1_000, 1_000)}\n  1001\t${"\0".repeat(2_000)} [... line cut: 2,000 of ${rest.toLocaleString("en-US")} characters shown]`,
    );
  });
});

describe("read describes what is not a text file instead of showing it", () => {
  it.each([
    {
      what: "a PDF by its type, though it starts as text",
      file: Buffer.from("%PDF-1.7\n%text-like header\n"),
      type: "PDF document, ",
    },
    { what: "a GGUF model", file: Buffer.from("GGUF\x03\0\0\0", "latin1"), type: "GGUF model, " },
    {
      what: "a SQLite database",
      file: Buffer.from("SQLite format 3\0rest", "latin1"),
      type: "SQLite database, ",
    },
    {
      what: "an ELF executable",
      file: Buffer.from("\x7fELF\x02\x01", "latin1"),
      type: "ELF executable, ",
    },
    {
      what: "an unknown file with NUL bytes by its size",
      file: Buffer.from("data\0\0\0more"),
      type: "",
    },
    {
      what: "mostly invalid UTF-8 by its size",
      file: Buffer.from(Array.from({ length: 600 }, (_, i) => 0x80 + (i % 64))),
      type: "",
    },
  ])("summarises $what", async ({ file, type }) => {
    const { root, read } = setup({ "data.bin": file });
    expect(await read({ file_path: "data.bin" })).toEqual({
      content: `${root}/data.bin is a binary file (${type}${file.length} bytes), so it is not shown.`,
      isError: false,
    });
  });

  it("lists a directory's first entries, directories with a trailing /", async () => {
    const { root, read } = setup({ "src/b.ts": "", "src/a.ts": "", "src/lib/c.ts": "" });
    expect(await read({ file_path: "src" })).toEqual({
      content: `${root}/src is a directory, not a file. Its 3 entries:\na.ts\nb.ts\nlib/`,
      isError: true,
    });
  });

  it("lists 50 entries of a large directory and counts the rest", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`many/f${String(i).padStart(2, "0")}`, ""]),
    );
    const { read } = setup(files);
    const lines = (await read({ file_path: "many" })).content.split("\n");
    expect(lines.slice(1, 3)).toEqual(["f00", "f01"]);
    expect(lines.slice(-2)).toEqual(["f49", "[... and 10 more]"]);
  });

  it.each([
    {
      what: "names like it in the same directory, the closest first",
      path: "src/tools/red.ts",
      suggests: ["src/tools/read.ts", "src/tools/reads.ts"],
    },
    {
      what: "the same name ignoring case",
      path: "readme.md",
      suggests: ["README.md"],
    },
    {
      what: "the same file name elsewhere in the workspace, not in node_modules or .git",
      path: "lib/read.ts",
      suggests: ["src/tools/read.ts"],
    },
    { what: "nothing when nothing is alike", path: "src/zzz-unrelated.ts", suggests: [] },
  ])("says a missing path does not exist, and suggests $what", async ({ path, suggests }) => {
    const { root, read } = setup({
      "README.md": "",
      "src/tools/read.ts": "",
      "src/tools/reads.ts": "",
      "src/tools/write.ts": "",
      "node_modules/pkg/read.ts": "",
      ".git/read.ts": "",
    });
    const result = await read({ file_path: path });
    const closest = suggests.map((name) => `\n${root}/${name}`).join("");
    expect(result).toEqual({
      content: `${root}/${path} does not exist.${suggests.length > 0 ? " Closest existing names:" : ""}${closest}`,
      isError: true,
    });
  });
});

describe("read and the record of what the model has seen", () => {
  async function afterRead(files: Record<string, string | Buffer>, input: ReadInput) {
    const { root, reads, read } = setup(files);
    await read(input);
    return { reads, path: join(root, input.file_path) };
  }
  const notRead = (reads: FileReads, path: string) => reads.staleReason(path) !== null;

  it.each([
    { what: "a whole text file", files: { "a.txt": "a\nb\n" }, input: { file_path: "a.txt" } },
    {
      what: "part of one",
      files: { "a.txt": textOfLines(10) },
      input: { file_path: "a.txt", limit: 2 },
    },
    { what: "an empty file", files: { "a.txt": "" }, input: { file_path: "a.txt" } },
  ])("remembers $what as read", async ({ files, input }) => {
    const { reads, path } = await afterRead(files, input);
    expect(reads.staleReason(path)).toBeNull();
  });

  it.each([
    {
      what: "a binary file",
      files: { "a.txt": Buffer.from("x\0y") },
      input: { file_path: "a.txt" },
    },
    {
      what: "a read past the end",
      files: { "a.txt": "a\n" },
      input: { file_path: "a.txt", offset: 5 },
    },
  ])("does not remember $what as read", async ({ files, input }) => {
    const { reads, path } = await afterRead(files, input);
    expect(notRead(reads, path)).toBe(true);
  });
});

describe("read as a tool", () => {
  it("hides secrets in what it shows", async () => {
    const { root } = setup({ ".env": "API_KEY=sk-live-0123456789\nDEBUG=1\n" });
    const tool = createReadTool({
      workspace: root,
      reads: createFileReads(),
      redact: (text) => text.replaceAll("sk-live-0123456789", "[redacted:API_KEY]"),
    });
    const result = await tool.run({ file_path: ".env" }, { signal: new AbortController().signal });
    expect(result.content).toBe("     1\tAPI_KEY=[redacted:API_KEY]\n     2\tDEBUG=1");
  });

  it("reads absolute paths and paths from the home directory", async () => {
    const { root, read } = setup({ "a.txt": "absolute\n" });
    expect((await read({ file_path: join(root, "a.txt") })).content).toBe("     1\tabsolute");
    expect((await read({ file_path: "~/surely-missing-agentloop-file" })).content).toMatch(
      /\/surely-missing-agentloop-file does not exist\./,
    );
  });

  it("is read-only and names the file it reads, as the model wrote it", () => {
    const { tool } = setup();
    expect(tool.isReadOnly?.({ file_path: "a.txt" })).toBe(true);
    expect(tool.files?.({ file_path: "src/a.ts" })).toEqual([{ path: "src/a.ts", change: false }]);
  });

  it("has a short definition: a name, two sentences and a schema with file_path required", () => {
    const { tool } = setup();
    const definition = {
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    };
    expect(tool.name).toBe("read");
    expect(tool.inputSchema.required).toEqual(["file_path"]);
    expect(Object.keys(tool.inputSchema.properties)).toEqual(["file_path", "offset", "limit"]);
    expect(JSON.stringify(definition).length).toBeLessThan(600);
  });
});

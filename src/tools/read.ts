// The read tool: shows the model a text file with numbered lines, one bounded part at a time,
// in time and memory that do not depend on the file's size (only what is shown, or skipped to
// reach it, is read). What is not text is described instead of dumped: a binary file by its
// type and size, a directory by its entries, a missing file by the existing names closest to it.

import { type FileHandle, open, readdir, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { FileReads } from "./file-reads.js";
import { looksBinary } from "./terminal-text.js";
import type { Tool, ToolOutput } from "./tool.js";
import { resolveToolPath } from "./tool-path.js";

export type ReadInput = {
  file_path: string;
  offset?: number;
  limit?: number;
};

export interface ReadOptions {
  /** The workspace root, where relative paths start. */
  workspace: string;
  /** The record of what the model has read, so that `write` and `edit` may change the file. */
  reads: FileReads;
  /** Applied to the text sent to the model (to hide secrets a file holds). */
  redact?: (text: string) => string;
}

export const DEFAULT_READ_LIMIT = 2_000;
/** UTF-8 bytes of numbered lines in one result, and so at most as many characters. */
const MAX_OUTPUT_BYTES = 50_000;
const MAX_LINE_CHARS = 2_000;
/** Bytes that always hold the first MAX_LINE_CHARS characters of a line (four bytes at most each). */
const KEPT_LINE_BYTES = 4 * MAX_LINE_CHARS + 4;
const CHUNK_BYTES = 64 * 1024;
const SNIFF_BYTES = 8 * 1024;
/** After the lines shown, the rest is scanned to count its lines only when this much or less remains. */
const MAX_COUNTED_REST_BYTES = 16 * 1024 * 1024;
const LISTED_ENTRIES = 50;
const SUGGESTIONS = 5;
const SEARCH_MAX_DEPTH = 6;
const SEARCH_MAX_DIRECTORIES = 2_000;
const SEARCH_MAX_MS = 200;
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".git"]);

export function createReadTool(options: ReadOptions): Tool<ReadInput> {
  const redact = options.redact ?? ((text: string) => text);
  return {
    name: "read",
    description:
      "Read a text file; lines come numbered like `cat -n`. " +
      `At most ${count(DEFAULT_READ_LIMIT)} lines or 50 KB per call: read a long file in parts with offset and limit.`,
    inputSchema: {
      type: "object",
      properties: {
        file_path: {
          type: "string",
          description: "Absolute, ~/..., or relative to the workspace root.",
        },
        offset: { type: "integer", description: "First line to show, from 1." },
        limit: { type: "integer", description: `Lines to show (default ${DEFAULT_READ_LIMIT}).` },
      },
      required: ["file_path"],
    },
    isReadOnly: () => true,
    files: (input) => [{ path: input.file_path, change: false }],
    async run(input, context) {
      const output = await readForModel(input, options, context.signal);
      return { content: redact(output.content), isError: output.isError };
    },
  };
}

async function readForModel(
  input: ReadInput,
  options: ReadOptions,
  signal: AbortSignal,
): Promise<ToolOutput> {
  const first = Math.max(input.offset ?? 1, 1);
  const limit = input.limit ?? DEFAULT_READ_LIMIT;
  if ((input.offset ?? 1) < 0) return failure("offset is a line number, counted from 1.");
  if (limit < 1) return failure("limit is a number of lines, at least 1.");
  const path = resolveToolPath(options.workspace, input.file_path);

  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) return failure(await describeDirectory(path));
    if (!info.isFile()) {
      return failure(
        `${path} is not a regular file (a device, pipe or socket), so it is not read.`,
      );
    }
    size = info.size;
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") {
      return failure(await describeMissing(path, options.workspace));
    }
    return failure(cannotRead(path, error));
  }

  let scanner: LineScanner;
  try {
    scanner = await LineScanner.open(path, signal);
  } catch (error) {
    return failure(cannotRead(path, error));
  }
  try {
    const kind = binaryKind(await scanner.sniff());
    if (kind !== null) {
      const type = kind === "" ? "" : `${kind}, `;
      return success(`${path} is a binary file (${type}${count(size)} bytes), so it is not shown.`);
    }
    const excerpt = await readExcerpt(scanner, size, first, limit);
    if (excerpt.lines.length > 0 || excerpt.totalLines === 0) remember(options.reads, path);
    return success(describeExcerpt(path, excerpt, size, first));
  } catch (error) {
    if (signal.aborted) return failure("[interrupted by the user; nothing was read]");
    return failure(cannotRead(path, error));
  } finally {
    await scanner.close();
  }
}

interface Excerpt {
  /** The lines shown, numbered and ready to print. */
  lines: string[];
  /** Lines in the whole file, or null when too much was left after the lines shown to count. */
  totalLines: number | null;
  /** True when lines follow the last one shown. */
  more: boolean;
}

async function readExcerpt(
  scanner: LineScanner,
  size: number,
  first: number,
  limit: number,
): Promise<Excerpt> {
  const skipped = await scanner.skipLines(first - 1);
  if (skipped < first - 1) return { lines: [], totalLines: skipped, more: false };
  const lines: string[] = [];
  let bytes = 0;
  let consumed = skipped;
  let more = false;
  while (lines.length < limit) {
    const line = await scanner.nextLine(MAX_LINE_CHARS);
    if (line === null) break;
    consumed += 1;
    const numbered = numberLine(first + lines.length, line);
    bytes += Buffer.byteLength(numbered) + 1;
    if (bytes > MAX_OUTPUT_BYTES) {
      more = true;
      break;
    }
    lines.push(numbered);
  }
  more ||= await scanner.hasMore();
  if (!more) return { lines, totalLines: consumed, more };
  if (size - scanner.position > MAX_COUNTED_REST_BYTES) return { lines, totalLines: null, more };
  return {
    lines,
    totalLines: consumed + (await scanner.skipLines(Number.POSITIVE_INFINITY)),
    more,
  };
}

/** Like `cat -n`: the number right-aligned in six columns, a tab, the line. */
function numberLine(number: number, line: Line): string {
  const text =
    line.chars > MAX_LINE_CHARS
      ? `${line.text} [... line cut: ${count(MAX_LINE_CHARS)} of ${count(line.chars)} characters shown]`
      : line.text;
  return `${String(number).padStart(6)}\t${text}`;
}

function describeExcerpt(path: string, excerpt: Excerpt, size: number, first: number): string {
  const { lines, totalLines, more } = excerpt;
  if (totalLines === 0) return "(empty file)";
  if (lines.length === 0 && totalLines !== null) {
    return `${path} has ${plural(totalLines, "line")}; offset ${count(first)} is past the end.`;
  }
  if (!more) return lines.join("\n");
  const last = first + lines.length - 1;
  const range = last === first ? `line ${count(first)}` : `lines ${count(first)}-${count(last)}`;
  const extent =
    totalLines === null
      ? `${range} shown; the file goes on (${count(size)} bytes in all)`
      : `${range} of ${count(totalLines)} shown`;
  return `${lines.join("\n")}\n[${extent}; read on with offset ${count(last + 1)}]`;
}

interface Line {
  /** The line without its end (`\n` or `\r\n`), only its first MAX_LINE_CHARS characters if longer. */
  text: string;
  /** Characters in the whole line. */
  chars: number;
}

/**
 * Reads a file line by line from the start through one reused buffer, so memory stays the
 * same whatever the size of the file or of a line. A byte order mark is not part of line 1.
 */
class LineScanner {
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private chunk = Buffer.alloc(0);
  private start = 0;
  /** Where in the file the next chunk is read from. */
  position = 0;

  private constructor(
    private readonly handle: FileHandle,
    private readonly signal: AbortSignal,
  ) {}

  static async open(path: string, signal: AbortSignal): Promise<LineScanner> {
    return new LineScanner(await open(path, "r"), signal);
  }

  /** The file's first bytes, to tell text from binary. */
  async sniff(): Promise<Buffer> {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await this.handle.read(head, 0, SNIFF_BYTES, 0);
    return head.subarray(0, bytesRead);
  }

  /** Passes over up to `n` lines; returns how many there were. */
  async skipLines(n: number): Promise<number> {
    let skipped = 0;
    let partial = false;
    while (skipped < n && (await this.fill())) {
      while (skipped < n) {
        const newline = this.chunk.indexOf(NEWLINE, this.start);
        if (newline === -1) {
          partial ||= this.start < this.chunk.length;
          this.start = this.chunk.length;
          break;
        }
        this.start = newline + 1;
        skipped += 1;
        partial = false;
      }
    }
    // The last line of a file need not end with a newline.
    return partial && skipped < n ? skipped + 1 : skipped;
  }

  async nextLine(maxChars: number): Promise<Line | null> {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let restChars = 0;
    let lastByte = -1;
    let any = false;
    while (await this.fill()) {
      any = true;
      const newline = this.chunk.indexOf(NEWLINE, this.start);
      const end = newline === -1 ? this.chunk.length : newline;
      const keep = Math.min(end - this.start, KEPT_LINE_BYTES - keptBytes);
      if (keep > 0) kept.push(Buffer.from(this.chunk.subarray(this.start, this.start + keep)));
      keptBytes += keep;
      restChars += countCharacters(this.chunk, this.start + keep, end);
      if (end > this.start) lastByte = this.chunk[end - 1] ?? -1;
      this.start = newline === -1 ? end : newline + 1;
      if (newline !== -1) break;
    }
    if (!any) return null;
    const carriageReturn = lastByte === CARRIAGE_RETURN ? 1 : 0;
    // A character cut at the end of the kept bytes decodes to one U+FFFD; the rest of its bytes
    // are continuation bytes, which countCharacters does not count: it is counted once.
    const characters = Array.from(new TextDecoder().decode(Buffer.concat(kept)));
    const chars = characters.length + restChars - carriageReturn;
    if (carriageReturn && restChars === 0) characters.pop();
    return { text: characters.slice(0, maxChars).join(""), chars };
  }

  async hasMore(): Promise<boolean> {
    return this.fill();
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /** Makes sure unread bytes are in the chunk; false at the end of the file. */
  private async fill(): Promise<boolean> {
    while (this.start >= this.chunk.length) {
      this.signal.throwIfAborted();
      const { bytesRead } = await this.handle.read(this.buffer, 0, CHUNK_BYTES, this.position);
      if (bytesRead === 0) return false;
      this.chunk = this.buffer.subarray(0, bytesRead);
      this.start = this.position === 0 && this.chunk.subarray(0, 3).equals(BOM) ? 3 : 0;
      this.position += bytesRead;
    }
    return true;
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Characters in UTF-8 bytes: every byte but the continuation bytes (10xxxxxx) starts one. */
function countCharacters(bytes: Buffer, start: number, end: number): number {
  let characters = 0;
  for (let i = start; i < end; i++) if (((bytes[i] ?? 0) & 0xc0) !== 0x80) characters += 1;
  return characters;
}

// Magic numbers at the start of common binary files.
const MAGIC: { type: string; bytes: Buffer }[] = [
  { type: "PNG image", bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: "JPEG image", bytes: Buffer.from([0xff, 0xd8, 0xff]) },
  { type: "GIF image", bytes: Buffer.from("GIF8", "latin1") },
  { type: "PDF document", bytes: Buffer.from("%PDF-", "latin1") },
  { type: "ZIP archive", bytes: Buffer.from("PK\x03\x04", "latin1") },
  { type: "gzip archive", bytes: Buffer.from([0x1f, 0x8b]) },
  { type: "ELF executable", bytes: Buffer.from("\x7fELF", "latin1") },
  { type: "GGUF model", bytes: Buffer.from("GGUF", "latin1") },
  { type: "SQLite database", bytes: Buffer.from("SQLite format 3\0", "latin1") },
  { type: "WebAssembly module", bytes: Buffer.from("\0asm", "latin1") },
];

/** The type of a binary file from its first bytes ("" when unknown), or null for text. */
function binaryKind(head: Buffer): string | null {
  const known = MAGIC.find(({ bytes }) => head.subarray(0, bytes.length).equals(bytes));
  if (known) return known.type;
  // `stream` holds back a character cut at the end of the sniffed bytes instead of calling it invalid.
  return looksBinary(new TextDecoder().decode(head, { stream: true })) ? "" : null;
}

async function describeDirectory(path: string): Promise<string> {
  const entries = await readdir(path, { withFileTypes: true });
  if (entries.length === 0) return `${path} is an empty directory, not a file.`;
  const names = entries.map((entry) => entry.name).sort();
  const listed = await Promise.all(
    names.slice(0, LISTED_ENTRIES).map(async (name) => {
      const info = await stat(join(path, name)).catch(() => null);
      return info?.isDirectory() ? `${name}/` : name;
    }),
  );
  const rest = names.length - listed.length;
  if (rest > 0) listed.push(`[... and ${count(rest)} more]`);
  return `${path} is a directory, not a file. Its ${plural(names.length, "entry", "entries")}:\n${listed.join("\n")}`;
}

async function describeMissing(path: string, workspace: string): Promise<string> {
  const wanted = basename(path);
  const nearby = (await readdir(dirname(path)).catch(() => [] as string[]))
    .map((name) => ({ name, distance: nameDistance(wanted, name) }))
    .filter(({ distance }) => distance !== null)
    .sort((a, b) => (a.distance ?? 0) - (b.distance ?? 0) || (a.name < b.name ? -1 : 1))
    .map(({ name }) => join(dirname(path), name));
  const elsewhere = await findByName(workspace, wanted);
  const suggestions = [...new Set([...nearby, ...elsewhere])].slice(0, SUGGESTIONS);
  const missing = `${path} does not exist.`;
  if (suggestions.length === 0) return missing;
  return `${missing} Closest existing names:\n${suggestions.join("\n")}`;
}

/**
 * How far apart two file names are (edits, ignoring case), or null when they are not alike:
 * more than a third of the name differs and the names differ beyond their extensions.
 */
function nameDistance(wanted: string, name: string): number | null {
  const a = wanted.toLowerCase();
  const b = name.toLowerCase();
  const distance = editDistance(a, b);
  const sameStem = stem(a) === stem(b);
  return distance <= Math.floor(Math.max(a.length, b.length) / 3) || sameStem ? distance : null;
}

function stem(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Files named `name` under `root`, breadth first, stopping at a few levels, directories and ms. */
async function findByName(root: string, name: string): Promise<string[]> {
  const deadline = Date.now() + SEARCH_MAX_MS;
  const wanted = name.toLowerCase();
  const found: string[] = [];
  let level = [root];
  let visited = 0;
  for (let depth = 0; depth <= SEARCH_MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const directory of level) {
      if (found.length >= SUGGESTIONS || visited >= SEARCH_MAX_DIRECTORIES) return found;
      if (Date.now() > deadline) return found;
      visited += 1;
      const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const path = join(directory, entry.name);
        if (entry.name.toLowerCase() === wanted) found.push(path);
        if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) next.push(path);
      }
    }
    level = next;
  }
  return found;
}

function remember(reads: FileReads, path: string): void {
  try {
    reads.remember(path);
  } catch {
    // Gone since it was read: then there is nothing to overwrite, and nothing to remember.
  }
}

function cannotRead(path: string, error: unknown): string {
  const code = errorCode(error);
  if (code === "EACCES" || code === "EPERM") return `Cannot read ${path}: permission denied.`;
  return `Cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function success(content: string): ToolOutput {
  return { content, isError: false };
}

function failure(content: string): ToolOutput {
  return { content, isError: true };
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${count(n)} ${n === 1 ? noun : nouns}`;
}

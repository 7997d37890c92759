// The read tool: shows the model a text file with numbered lines, one bounded part at a time,
// in time and memory that do not depend on the file's size (only what is shown, or skipped to
// reach it, is read: line-reader.ts). What is not text is described instead of dumped: a binary
// file by its type and size, a directory by its entries, a missing file by the existing names
// closest to it (closest-names.ts). An image (PNG, JPEG, GIF, WebP, known by its bytes) is
// shown to the model as the picture itself, with one line saying what it is.

import { constants } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { resolveToolPath } from "../core/tool-path.js";
import { count, plural } from "../core/wording.js";
import { imageKind } from "../images/image-kind.js";
import { describePrepared, prepareImage } from "../images/prepare-image.js";
import { realTarget } from "../sandbox/real-path.js";
import { closestNames } from "./closest-names.js";
import type { FileReads } from "./file-reads.js";
import { type Line, LineReader } from "./line-reader.js";
import { NO_FOLLOW, type PinnedFile, pinFile } from "./pinned-file.js";
import { looksBinary } from "./terminal-text.js";
import type { Tool, ToolContext, ToolOutput } from "./tool.js";
import { failure, success } from "./tool.js";

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
/** After the lines shown, the rest is scanned to count its lines only when this much or less remains. */
const MAX_COUNTED_REST_BYTES = 16 * 1024 * 1024;
const LISTED_ENTRIES = 50;

export function createReadTool(options: ReadOptions): Tool<ReadInput> {
  const redact = options.redact ?? ((text: string) => text);
  return {
    name: "read",
    description:
      "Read a text file; lines come numbered like `cat -n`. " +
      "An image file (PNG, JPEG, GIF, WebP) comes as the image itself. " +
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
      const output = await readForModel(input, options, context);
      return { ...output, content: redact(output.content) };
    },
  };
}

async function readForModel(
  input: ReadInput,
  options: ReadOptions,
  context: ToolContext,
): Promise<ToolOutput> {
  const { signal } = context;
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

  // What is read is where the permission check judged the path to lead, and no link swapped in.
  let pinned: PinnedFile | string;
  try {
    pinned = pinFile(context.realPaths?.[input.file_path] ?? realTarget(path), { create: false });
  } catch (error) {
    return failure(cannotRead(path, error));
  }
  if (typeof pinned === "string") return failure(`Could not read ${path}: ${pinned}.`);
  let reader: LineReader;
  try {
    reader = await LineReader.open(pinned.path, signal, NO_FOLLOW | NON_BLOCKING);
  } catch (error) {
    pinned.close();
    return failure(cannotRead(path, error));
  }
  try {
    const head = await reader.sniff();
    if (imageKind(head) !== null || claimsImage(path)) {
      return await readImage(path, size, reader);
    }
    const kind = binaryKind(head);
    if (kind !== null) {
      const type = kind === "" ? "" : `${kind}, `;
      return success(`${path} is a binary file (${type}${count(size)} bytes), so it is not shown.`);
    }
    // @step tool.read: The file's lines are read, numbered, from offset up to limit.
    const excerpt = await readExcerpt(reader, size, first, limit);
    if (excerpt.lines.length > 0 || excerpt.totalLines === 0)
      remember(options.reads, path, pinned.path);
    return success(describeExcerpt(path, excerpt, size, first));
  } catch (error) {
    if (signal.aborted) return failure("[interrupted by the user; nothing was read]");
    return failure(cannotRead(path, error));
  } finally {
    await reader.close();
    pinned.close();
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
  reader: LineReader,
  size: number,
  first: number,
  limit: number,
): Promise<Excerpt> {
  const skipped = await reader.skipLines(first - 1);
  if (skipped < first - 1) return { lines: [], totalLines: skipped, more: false };
  const lines: string[] = [];
  let bytes = 0;
  let consumed = skipped;
  let more = false;
  while (lines.length < limit) {
    const line = await reader.nextLine(MAX_LINE_CHARS);
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
  more ||= await reader.hasMore();
  if (!more) return { lines, totalLines: consumed, more };
  if (size - reader.position > MAX_COUNTED_REST_BYTES) return { lines, totalLines: null, more };
  return {
    lines,
    totalLines: consumed + (await reader.skipLines(Number.POSITIVE_INFINITY)),
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

/**
 * An image comes as one line and the picture itself (images/prepare-image.ts fits it to the
 * APIs' limits). A file that is named like an image or starts like one, and is not a whole
 * image, is an error result: nothing is sent.
 */
async function readImage(path: string, size: number, reader: LineReader): Promise<ToolOutput> {
  if (size > MAX_IMAGE_FILE_BYTES) {
    return failure(
      `${path} is over ${count(MAX_IMAGE_FILE_BYTES)} bytes, too large to read as an image.`,
    );
  }
  const checked = await prepareImage(await reader.readAll());
  if (!checked.ok) return failure(`${path} is not sent as an image: ${checked.reason}.`);
  const text = describePrepared(basename(path), checked.prepared);
  return { content: text, images: [checked.prepared.image], isError: false };
}

/** A pipe swapped in after the check is not waited on. */
const NON_BLOCKING = constants.O_NONBLOCK ?? 0;

const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;
/** Decoding reads the whole file into memory: a file larger than this is no screenshot. */
const MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024;

function claimsImage(path: string): boolean {
  return IMAGE_NAME.test(path);
}

// Magic numbers at the start of common binary files (images are recognised by images/image-kind.ts).
const MAGIC: { type: string; bytes: Buffer }[] = [
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
  const suggestions = await closestNames(path, workspace);
  const missing = `${path} does not exist.`;
  if (suggestions.length === 0) return missing;
  return `${missing} Closest existing names:\n${suggestions.join("\n")}`;
}

function remember(reads: FileReads, path: string, at: string): void {
  try {
    reads.remember(path, at);
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

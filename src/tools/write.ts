// The write tool: replaces a file whole, or creates it and the directories it needs. The new
// content appears all at once or not at all (it is written beside the file, flushed to disk,
// then renamed over it), and an existing file is overwritten only if the model has read it
// as it is on disk now, so nothing the model has not seen is lost.

import type { Stats } from "node:fs";
import { lstat, readFile, stat } from "node:fs/promises";
import { writeFileAtomically } from "../core/atomic-write.js";
import { resolveToolPath } from "../core/tool-path.js";
import { count, plural } from "../core/wording.js";
import { realTarget } from "../sandbox/real-path.js";
import type { FileReads } from "./file-reads.js";
import { NO_FOLLOW, type PinnedFile, pinFile } from "./pinned-file.js";
import { countLines, splitLines } from "./text-lines.js";
import type { Tool, ToolContext, ToolOutput } from "./tool.js";
import { failure, success } from "./tool.js";
import { countChangedLines, unifiedDiff } from "./unified-diff.js";

export type WriteInput = {
  file_path: string;
  content: string;
};

export interface WriteOptions {
  /** The workspace root, where relative paths start. */
  workspace: string;
  /** The record of what the model has read: only a file read as it is now may be overwritten. */
  reads: FileReads;
}

/** A change of at most this many lines (added plus removed) is shown as a diff in the result. */
const MAX_DIFF_CHANGED_LINES = 40;
/** An existing file larger than this is not read back to compare with the new content. */
const MAX_COMPARED_BYTES = 4 * 1024 * 1024;
const PREVIEW_LINES = 20;
const PREVIEW_LINE_CHARS = 200;
/** A new file's mode before the umask, as Node's own writeFile gives it. */
const NEW_FILE_MODE = 0o666;

export function createWriteTool(options: WriteOptions): Tool<WriteInput> {
  return {
    name: "write",
    description:
      "Write a file whole: create it (and its directories) or replace all of it. " +
      "An existing file must have been read first in this session.",
    inputSchema: {
      type: "object",
      properties: {
        file_path: { type: "string" },
        content: { type: "string", description: "The complete new content of the file." },
      },
      required: ["file_path", "content"],
    },
    files: (input) => [{ path: input.file_path, change: true }],
    preview: (input) => previewWrite(input, options),
    run: (input, context) => writeForModel(input, options, context),
  };
}

async function writeForModel(
  input: WriteInput,
  options: WriteOptions,
  context: ToolContext,
): Promise<ToolOutput> {
  const path = resolveToolPath(options.workspace, input.file_path);
  if (/[\\/]$/.test(input.file_path)) {
    return failure(`${input.file_path} names a directory; give the path of a file.`);
  }
  // Where the permission check judged the path to lead; the write goes there and nowhere else.
  let pinned: PinnedFile | string;
  try {
    pinned = pinFile(context.realPaths?.[input.file_path] ?? realTarget(path), { create: true });
  } catch (error) {
    return failure(cannotWrite(path, error));
  }
  if (typeof pinned === "string") return failure(`Could not write ${path}: ${pinned}.`);
  try {
    return await writePinned(input, options, path, pinned);
  } finally {
    pinned.close();
  }
}

async function writePinned(
  input: WriteInput,
  options: WriteOptions,
  path: string,
  pinned: PinnedFile,
): Promise<ToolOutput> {
  let existing: Stats | null;
  try {
    existing = await statOrNull(pinned.path, lstat);
  } catch (error) {
    return failure(cannotWrite(path, error));
  }
  if (existing?.isSymbolicLink()) {
    return failure(
      `Could not write ${path}: it became a link after it was approved; nothing was written.`,
    );
  }
  if (existing?.isDirectory()) {
    return failure(`${path} is a directory; give the path of a file to write.`);
  }
  if (existing && !existing.isFile()) {
    return failure(
      `${path} is not a regular file (a device, pipe or socket), so it is not replaced.`,
    );
  }
  if (existing) {
    const stale = options.reads.staleReason(path, pinned.path);
    if (stale) return failure(stale);
  }

  try {
    const before =
      existing && existing.size <= MAX_COMPARED_BYTES
        ? await readFile(pinned.path, { encoding: "utf8", flag: NO_FOLLOW })
        : null;
    const moved = pinned.moved();
    if (moved) return failure(`Could not write ${path}: ${moved}.`);
    // @step tool.write: The whole file is written at once, so a crash cannot leave half of it.
    await writeFileAtomically(pinned.path, input.content, {
      mode: NEW_FILE_MODE,
      followLink: false,
    });
    options.reads.remember(path, pinned.path);
    return success(
      existing
        ? describeOverwrite(path, before, existing.size, input.content)
        : describeCreated(path, input.content),
    );
  } catch (error) {
    return failure(cannotWrite(path, error));
  }
}

function describeCreated(path: string, content: string): string {
  return `Created ${path} (${plural(countLines(content), "line")}).`;
}

function describeOverwrite(
  path: string,
  before: string | null,
  size: number,
  after: string,
): string {
  const was = before === null ? `${count(size)} bytes` : plural(countLines(before), "line");
  const summary = `Wrote ${path} (${plural(countLines(after), "line")}; was ${was}).`;
  if (before === null) return summary;
  const changed = countChangedLines(before, after, MAX_DIFF_CHANGED_LINES);
  if (changed === 0) return `${summary} The content is the same as before.`;
  if (changed === null) return summary;
  return `${summary}\n${unifiedDiff(path, before, after)}`;
}

/** What the write would do, for a person asked to approve it: the diff, or the new file's start. */
async function previewWrite(input: WriteInput, options: WriteOptions): Promise<string> {
  const path = resolveToolPath(options.workspace, input.file_path);
  const existing = await statOrNull(path).catch(() => null);
  const lines = plural(countLines(input.content), "line");
  if (!existing) {
    const all = splitLines(input.content);
    const first = all.slice(0, PREVIEW_LINES).map((line) => `+${cutLine(line)}`);
    if (all.length > PREVIEW_LINES) {
      first.push(`[... ${count(all.length - PREVIEW_LINES)} more lines]`);
    }
    return [`new file ${path}, ${lines}`, ...first].join("\n");
  }
  if (existing.isDirectory()) return `${path} is a directory; the write will be refused.`;
  const before =
    existing.isFile() && existing.size <= MAX_COMPARED_BYTES
      ? await readFile(path, "utf8").catch(() => null)
      : null;
  if (before === null) return `replace ${path} (${count(existing.size)} bytes) with ${lines}`;
  if (before === input.content) return `no change to ${path} (${lines})`;
  return unifiedDiff(path, before, input.content);
}

async function statOrNull(path: string, how = stat): Promise<Stats | null> {
  try {
    return await how(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function cutLine(line: string): string {
  return line.length > PREVIEW_LINE_CHARS ? `${line.slice(0, PREVIEW_LINE_CHARS)} [...]` : line;
}

const WRITE_ERRORS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "permission denied",
  ENOSPC: "no space left on the device",
  EROFS: "the file system is read-only",
  ENOTDIR: "a part of the path is a file, not a directory",
  EEXIST: "a part of the path is a file, not a directory",
};

function cannotWrite(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "";
  const reason = WRITE_ERRORS[code] ?? (error instanceof Error ? error.message : String(error));
  return `Could not write ${path}: ${reason}.`;
}

// The edit tool (s02): replaces exact text in a file the model has read, as it is on disk now.
// A miss explains itself (edit-match.ts), several replacements land together or not at all,
// and the file keeps its line endings, byte order mark and mode. The model sees the diff.

import { constants } from "node:fs";
import { access, lstat, readFile, stat } from "node:fs/promises";
import { writeFileAtomically } from "../core/atomic-write.js";
import { resolveToolPath } from "../core/tool-path.js";
import { plural } from "../core/wording.js";
import { realTarget } from "../sandbox/real-path.js";
import { describeLines, explainMiss, findOccurrences, lineAt } from "./edit-match.js";
import type { FileReads } from "./file-reads.js";
import { NO_FOLLOW, type PinnedFile, pinFile } from "./pinned-file.js";
import { countLines } from "./text-lines.js";
import type { Tool, ToolContext, ToolOutput } from "./tool.js";
import { changedLineCounts, unifiedDiff } from "./unified-diff.js";

export type Replacement = {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
};

export type EditInput = {
  file_path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
  /** Further replacements, each applied to the text the ones before it left. */
  edits?: Replacement[];
};

export interface EditOptions {
  /** Where relative paths start. */
  workspace: string;
  /** What the model has read: only a file it has seen, unchanged since, may be edited. */
  reads: FileReads;
}

/** The planned change: the text before and after (with \n line endings) and the bytes to write. */
interface PlannedEdit {
  path: string;
  before: string;
  after: string;
  replacements: number;
  bytes: Buffer;
}

type Plan = { ok: true; edit: PlannedEdit } | { ok: false; error: string };

export function createEditTool(options: EditOptions): Tool<EditInput> {
  return {
    name: "edit",
    description:
      "Replace text in a file you have read. old_string must match exactly, whitespace included, and once unless replace_all is set. " +
      "edits: more replacements, applied in order, all or none.",
    inputSchema: {
      type: "object",
      properties: {
        file_path: { type: "string" },
        old_string: { type: "string" },
        new_string: { type: "string" },
        replace_all: { type: "boolean" },
        edits: {
          type: "array",
          items: {
            type: "object",
            properties: {
              old_string: { type: "string" },
              new_string: { type: "string" },
              replace_all: { type: "boolean" },
            },
            required: ["old_string", "new_string"],
          },
        },
      },
      required: ["file_path", "old_string", "new_string"],
    },
    files: (input) => [{ path: input.file_path, change: true }],
    async preview(input) {
      const plan = await planEdit(input, options);
      return plan.ok ? unifiedDiff(plan.edit.path, plan.edit.before, plan.edit.after) : plan.error;
    },
    run: (input, context) => runEdit(input, options, context),
  };
}

export async function runEdit(
  input: EditInput,
  options: EditOptions,
  context: ToolContext,
): Promise<ToolOutput> {
  const given = resolveToolPath(options.workspace, input.file_path);
  // Where the permission check judged the path to lead; the edit reads and writes there only.
  let pinned: PinnedFile | string;
  try {
    pinned = pinFile(context.realPaths?.[input.file_path] ?? realTarget(given), { create: false });
  } catch (error) {
    // A directory that does not exist, or a file where one should be: said as for the file.
    const problem = await fileProblem(given, options.reads);
    return {
      content: problem ?? `${given} could not be read (${reasonOf(error)}).`,
      isError: true,
    };
  }
  if (typeof pinned === "string") return { content: `${given}: ${pinned}.`, isError: true };
  try {
    return await editPinned(input, options, pinned.path, pinned.moved, context.signal);
  } finally {
    pinned.close();
  }
}

async function editPinned(
  input: EditInput,
  options: EditOptions,
  at: string,
  moved: () => string | null,
  signal: AbortSignal,
): Promise<ToolOutput> {
  // @step tool.edit: Each old_string must match exactly once; only then is the file rewritten.
  const plan = await planEdit(input, options, at);
  if (!plan.ok) return { content: plan.error, isError: true };
  const { path, before, after, replacements, bytes } = plan.edit;
  if (signal.aborted) {
    return { content: `Interrupted by the user; ${path} is unchanged.`, isError: true };
  }
  const elsewhere = moved();
  if (elsewhere) return { content: `${path}: ${elsewhere}.`, isError: true };
  try {
    await writeFileAtomically(at, bytes, { followLink: false });
  } catch (error) {
    return {
      content: `${path} could not be written (${reasonOf(error)}); it is unchanged.`,
      isError: true,
    };
  }
  options.reads.remember(path, at);
  const { added, removed } = changedLines(before, after);
  const summary = `Edited ${path}: ${plural(replacements, "replacement")}, +${added} -${removed} lines.`;
  return { content: `${summary}\n${unifiedDiff(path, before, after)}`, isError: false };
}

/**
 * Everything short of writing: the checks, the new text, or the sentence saying why not. `at`,
 * when given, is the pinned file the run works on (a link there was swapped in, and is refused);
 * a preview works on the path as written.
 */
async function planEdit(input: EditInput, options: EditOptions, at?: string): Promise<Plan> {
  const replacements = listReplacements(input);
  if (typeof replacements === "string") return { ok: false, error: replacements };

  const path = resolveToolPath(options.workspace, input.file_path);
  const problem = await fileProblem(path, options.reads, at);
  if (problem) return { ok: false, error: problem };

  let bytes: Buffer;
  try {
    bytes = await readFile(at ?? path, { flag: at ? NO_FOLLOW : "r" });
  } catch (error) {
    return { ok: false, error: `${path} could not be read (${reasonOf(error)}).` };
  }
  const file = decodeText(bytes);
  if (!file) {
    return {
      ok: false,
      error: `${path} is not UTF-8 text, so edit cannot change it without damaging it.`,
    };
  }

  let text = file.text;
  let count = 0;
  for (const [index, replacement] of replacements.entries()) {
    const applied = applyReplacement(text, inLineEndings(replacement, file.lineEndings), path);
    if (typeof applied === "string") {
      return { ok: false, error: failedEdit(applied, index, replacements.length) };
    }
    text = applied.text;
    count += applied.count;
  }
  if (text === file.text) {
    return {
      ok: false,
      error: `These edits would leave ${path} exactly as it is; nothing was changed.`,
    };
  }
  return {
    ok: true,
    edit: {
      path,
      before: file.text,
      after: text,
      replacements: count,
      bytes: encodeText(file, text),
    },
  };
}

/** The first replacement and those in `edits`, or the sentence saying which is malformed. */
function listReplacements(input: EditInput): Replacement[] | string {
  const replacements: Replacement[] = [input];
  for (const [index, edit] of (input.edits ?? []).entries()) {
    if (!isReplacement(edit)) {
      return `edits[${index}] must be an object with the strings old_string and new_string, and replace_all true or false if given.`;
    }
    replacements.push(edit);
  }
  for (const [index, { old_string, new_string }] of replacements.entries()) {
    const problem =
      old_string === ""
        ? "old_string is empty; to create a file or replace all of its content, use the write tool."
        : old_string === new_string
          ? "old_string and new_string are the same, so there is nothing to change."
          : null;
    if (problem) return failedEdit(problem, index, replacements.length, false);
  }
  return replacements;
}

function isReplacement(value: unknown): value is Replacement {
  if (typeof value !== "object" || value === null) return false;
  const edit = value as Record<string, unknown>;
  return (
    typeof edit.old_string === "string" &&
    typeof edit.new_string === "string" &&
    (edit.replace_all === undefined || typeof edit.replace_all === "boolean")
  );
}

/** Why the file may not be edited at all: missing, not a file, read-only, or not read as it is. */
async function fileProblem(path: string, reads: FileReads, at?: string): Promise<string | null> {
  try {
    const stats = at ? await lstat(at) : await stat(path);
    if (stats.isDirectory()) return `${path} is a directory, not a file.`;
    if (stats.isSymbolicLink())
      return `${path} became a link after it was approved; it is unchanged.`;
    if (!stats.isFile()) return `${path} is not a regular file, so edit cannot change it.`;
    // The new content replaces the file by renaming, which a read-only file would not stop.
    const writable = (stats.mode & 0o222) !== 0 && (await canWrite(at ?? path));
    if (!writable) {
      const mode = (stats.mode & 0o777).toString(8).padStart(4, "0");
      return `${path} is read-only (mode ${mode}), so edit will not change it.`;
    }
    return reads.staleReason(path, at);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return `${path} does not exist; to create a file, use the write tool.`;
    }
    return `${path} could not be read (${reasonOf(error)}).`;
  }
}

async function canWrite(path: string): Promise<boolean> {
  return access(path, constants.W_OK).then(
    () => true,
    () => false,
  );
}

function applyReplacement(
  text: string,
  { old_string, new_string, replace_all }: Replacement,
  path: string,
): { text: string; count: number } | string {
  const starts = findOccurrences(text, old_string);
  if (starts.length === 0) {
    return `old_string was not found in ${path}. ${explainMiss(text, old_string)}`;
  }
  if (starts.length > 1 && !replace_all) {
    const lines = describeLines(starts.map((start) => lineAt(text, start)));
    return `old_string occurs ${starts.length} times in ${path} (${lines}). Include more of the surrounding text so that it matches once, or set replace_all to change every occurrence.`;
  }
  // Sliced, not String.replace: "$&" or "$1" in new_string must arrive as written.
  const parts: string[] = [];
  let from = 0;
  let count = 0;
  for (const start of starts) {
    if (start < from) continue; // overlaps the occurrence just replaced
    parts.push(text.slice(from, start), new_string);
    from = start + old_string.length;
    count++;
  }
  parts.push(text.slice(from));
  return { text: parts.join(""), count };
}

function failedEdit(reason: string, index: number, total: number, matched = true): string {
  if (total === 1) return reason;
  const which = index === 0 ? "Edit 1" : `Edit ${index + 1} (edits[${index - 1}])`;
  const earlier = index === 1 ? "edit 1" : `edits 1-${index}`;
  const lines = matched && index > 0 ? ` Line numbers are those of the text after ${earlier}.` : "";
  return `${which} of ${total} failed: ${reason}${lines} Nothing was changed: the edits apply all together or not at all.`;
}

// --- the file as text ---------------------------------------------------------------------------

type LineEndings = "\n" | "\r\n" | "mixed";

interface TextFile {
  /** The content without the byte order mark, with \n line endings unless they are mixed. */
  text: string;
  bom: boolean;
  lineEndings: LineEndings;
}

/** Null for bytes that are not UTF-8 text: editing them as text would damage them. */
function decodeText(bytes: Buffer): TextFile | null {
  if (bytes.includes(0)) return null;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
  const bom = text.startsWith("\uFEFF");
  if (bom) text = text.slice(1);
  const crlf = text.includes("\r\n");
  const lf = /(?:^|[^\r])\n/.test(text);
  if (crlf && lf) return { text, bom, lineEndings: "mixed" };
  if (crlf) return { text: text.replaceAll("\r\n", "\n"), bom, lineEndings: "\r\n" };
  return { text, bom, lineEndings: "\n" };
}

function encodeText(file: TextFile, text: string): Buffer {
  const body = file.lineEndings === "\r\n" ? text.replaceAll("\n", "\r\n") : text;
  return Buffer.from(file.bom ? `\uFEFF${body}` : body, "utf8");
}

/**
 * The model's text in the terms of the file's text: where the file has one kind of line ending
 * a line break is a line break, whichever the model wrote. A file that mixes them is matched
 * exactly (a miss then says so).
 */
function inLineEndings(replacement: Replacement, lineEndings: LineEndings): Replacement {
  if (lineEndings === "mixed") return replacement;
  return {
    ...replacement,
    old_string: replacement.old_string.replaceAll("\r\n", "\n"),
    new_string: replacement.new_string.replaceAll("\r\n", "\n"),
  };
}

// --- the result ---------------------------------------------------------------------------------

/** Lines added and removed, as the diff shows them (every line, when the change is too large to diff). */
function changedLines(before: string, after: string): { added: number; removed: number } {
  return (
    changedLineCounts(before, after, 2_000) ?? {
      added: countLines(after),
      removed: countLines(before),
    }
  );
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code) return code;
  return error instanceof Error ? error.message : String(error);
}

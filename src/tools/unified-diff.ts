// A unified diff of two versions of a file, short enough to show: in the result of a write or
// an edit, and in the permission prompt before one. Finding the smallest diff takes time that
// grows with the size of the change, so a change too large to diff quickly is shown as every
// old line removed and every new line added (still a correct diff, just not a minimal one).

import {
  diffLines,
  FILE_HEADERS_ONLY,
  formatPatch,
  type StructuredPatch,
  structuredPatch,
} from "diff";
import { count } from "../core/wording.js";
import { splitLines } from "./text-lines.js";

export interface UnifiedDiffOptions {
  /** Unchanged lines shown around each change (default 3). */
  context?: number;
  /** Lines shown after the `---`/`+++` headers before the diff is cut with a note (default 200). */
  maxLines?: number;
}

const DEFAULT_CONTEXT = 3;
const DEFAULT_MAX_LINES = 200;
/** A longer line (a minified file) is cut: the diff is for reading, not for applying. */
const MAX_LINE_CHARS = 500;
/** Lines added plus removed beyond which the minimal diff is not searched for. */
const MAX_EDIT_LENGTH = 1_000;
const DIFF_TIMEOUT_MS = 1_000;
const NO_NEWLINE = "\\ No newline at end of file";

/**
 * The diff from `before` to `after` with `--- PATH` / `+++ PATH` headers and `@@` hunks, or ""
 * when the texts are equal.
 */
export function unifiedDiff(
  path: string,
  before: string,
  after: string,
  options: UnifiedDiffOptions = {},
): string {
  if (before === after) return "";
  const context = options.context ?? DEFAULT_CONTEXT;
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const patch =
    structuredPatch(path, path, before, after, undefined, undefined, {
      context,
      maxEditLength: MAX_EDIT_LENGTH,
      timeout: DIFF_TIMEOUT_MS,
    }) ?? wholeReplacement(path, before, after);
  const [oldHeader = "", newHeader = "", ...body] = formatPatch(patch, FILE_HEADERS_ONLY)
    .replace(/\n$/, "")
    .split("\n");
  const shown = body.slice(0, maxLines).map(cutLongLine);
  if (body.length > maxLines) {
    shown.push(`[... ${count(body.length - maxLines)} more lines of diff not shown]`);
  }
  return [oldHeader, newHeader, ...shown].join("\n");
}

/**
 * How many lines a change from `before` to `after` adds plus removes, or null when that is more
 * than `atMost` (found out without computing the whole diff, so a large rewrite costs little).
 */
export function countChangedLines(
  before: string,
  after: string,
  atMost = MAX_EDIT_LENGTH,
): number | null {
  const counts = changedLineCounts(before, after, atMost);
  return counts && counts.added + counts.removed;
}

/** The lines a change adds and removes, or null when together they are more than `atMost`. */
export function changedLineCounts(
  before: string,
  after: string,
  atMost = MAX_EDIT_LENGTH,
): { added: number; removed: number } | null {
  if (before === after) return { added: 0, removed: 0 };
  const changes = diffLines(before, after, { maxEditLength: atMost, timeout: DIFF_TIMEOUT_MS });
  if (!changes) return null;
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    if (change.added) added += change.count;
    if (change.removed) removed += change.count;
  }
  return { added, removed };
}

function wholeReplacement(path: string, before: string, after: string): StructuredPatch {
  const removed = diffSide("-", before);
  const added = diffSide("+", after);
  return {
    oldFileName: path,
    newFileName: path,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [
      {
        oldStart: 1,
        oldLines: removed.count,
        newStart: 1,
        newLines: added.count,
        lines: [...removed.lines, ...added.lines],
      },
    ],
  };
}

function diffSide(sign: "-" | "+", text: string): { count: number; lines: string[] } {
  const lines = splitLines(text);
  const signed = lines.map((line) => sign + line);
  if (text !== "" && !text.endsWith("\n")) signed.push(NO_NEWLINE);
  return { count: lines.length, lines: signed };
}

function cutLongLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  // Not in the middle of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(line[MAX_LINE_CHARS - 1] ?? "")
    ? MAX_LINE_CHARS - 1
    : MAX_LINE_CHARS;
  return `${line.slice(0, end)} [... line cut: ${count(line.length - 1)} characters]`;
}

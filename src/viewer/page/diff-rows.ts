// The file tools' calls and results as rows of a diff, without the DOM: an edit's old_string
// lines removed and new_string lines added, a write's content added, a read's line range, and
// the unified diff an edit or write reports. Inputs come from a session file, so each is
// checked first: anything that is not the shape the tool takes gets no special view (null).

export type RowKind =
  /** Lines removed, added, or kept around a change. */
  | "del"
  | "add"
  | "ctx"
  /** "@@ -a,b +c,d @@", or where one of several replacements starts. */
  | "hunk"
  /** "--- path" / "+++ path" above a diff. */
  | "file"
  /** The first line of a result that holds a diff ("Edited src/app.ts: 1 replacement, ..."). */
  | "headline"
  /** "\ No newline at end of file", "(empty file)" and the like. */
  | "note"
  /** Any other line. */
  | "text";

export interface Row {
  kind: RowKind;
  text: string;
}

export interface Replacement {
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

export type FileToolView =
  | { tool: "edit"; path: string; replacements: Replacement[] }
  | { tool: "write"; path: string; content: string }
  | { tool: "read"; path: string; range: string | null };

/** How a call of `name` with `input` is shown, or null to show its input as it is. */
export function fileToolView(name: string, input: unknown): FileToolView | null {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return null;
  const fields = input as Record<string, unknown>;
  const path = fields.file_path;
  if (typeof path !== "string" || path === "") return null;
  switch (name) {
    case "edit": {
      const replacements = editReplacements(fields);
      return replacements && { tool: "edit", path, replacements };
    }
    case "write":
      return typeof fields.content === "string"
        ? { tool: "write", path, content: fields.content }
        : null;
    case "read": {
      const { offset, limit } = fields;
      if (!optionalLineCount(offset) || !optionalLineCount(limit)) return null;
      return { tool: "read", path, range: lineRange(offset, limit) };
    }
    default:
      return null;
  }
}

/** The first replacement and those in `edits`, in the order the tool applies them. */
function editReplacements(fields: Record<string, unknown>): Replacement[] | null {
  const first = replacement(fields);
  if (!first) return null;
  if (fields.edits === undefined) return [first];
  if (!Array.isArray(fields.edits)) return null;
  const more = fields.edits.map(replacement);
  return more.every((edit) => edit !== null) ? [first, ...more] : null;
}

function replacement(value: unknown): Replacement | null {
  if (typeof value !== "object" || value === null) return null;
  const { old_string, new_string, replace_all } = value as Record<string, unknown>;
  if (typeof old_string !== "string" || typeof new_string !== "string") return null;
  if (replace_all !== undefined && typeof replace_all !== "boolean") return null;
  return { oldString: old_string, newString: new_string, replaceAll: replace_all === true };
}

function optionalLineCount(value: unknown): value is number | undefined {
  return value === undefined || (Number.isSafeInteger(value) && (value as number) >= 0);
}

/** "lines 10-59", "from line 10", "lines 1-40", or null when the whole file was asked for. */
function lineRange(offset: number | undefined, limit: number | undefined): string | null {
  if (offset === undefined && limit === undefined) return null;
  const first = Math.max(offset ?? 1, 1);
  if (limit === undefined) return `from line ${first}`;
  if (limit === 0) return `from line ${first}, limit 0`;
  const last = first + limit - 1;
  return last === first ? `line ${first}` : `lines ${first}–${last}`;
}

/** The lines of a replacement: old_string's removed, then new_string's added. */
export function replacementRows({ oldString, newString }: Replacement): Row[] {
  return [...signedRows("del", "-", oldString), ...signedRows("add", "+", newString)];
}

/** A whole file's content as added lines; a final line break ends the last line. */
export function contentRows(content: string): Row[] {
  if (content === "") return [{ kind: "note", text: "(empty file)" }];
  return signedRows("add", "+", content.replace(/\r?\n$/, ""));
}

function signedRows(kind: "del" | "add", sign: string, text: string): Row[] {
  if (text === "") return [];
  return splitLines(text).map((line) => ({ kind, text: sign + line }));
}

/** Lines split at \n or \r\n: a \r left at the end of a line would show as a stray space. */
export function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;
const HAS_HUNK_HEADER = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/m;

/**
 * A result holding a unified diff, as rows: its first line is the headline, the lines from the
 * first "@@" are coloured as a diff. Null when the text holds no diff.
 */
export function unifiedDiffRows(text: string): Row[] | null {
  if (!HAS_HUNK_HEADER.test(text)) return null;
  const lines = splitLines(text);
  const start = lines.findIndex((line) => HUNK_HEADER.test(line));
  const rows: Row[] = lines.slice(0, start).map((line, index) => ({
    kind: index === 0 ? "headline" : /^(---|\+\+\+) /.test(line) ? "file" : "text",
    text: line,
  }));
  // Lines left in the current hunk, on each side; past them, lines are no longer the diff's.
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of lines.slice(start)) {
    const header = HUNK_HEADER.exec(line);
    if (header) {
      oldLeft = Number(header[1] ?? 1);
      newLeft = Number(header[2] ?? 1);
      rows.push({ kind: "hunk", text: line });
      continue;
    }
    const inHunk = oldLeft > 0 || newLeft > 0;
    const sign = line[0];
    if (line.startsWith("\\ ")) {
      rows.push({ kind: "note", text: line });
    } else if (inHunk && sign === "-" && oldLeft > 0) {
      oldLeft -= 1;
      rows.push({ kind: "del", text: line });
    } else if (inHunk && sign === "+" && newLeft > 0) {
      newLeft -= 1;
      rows.push({ kind: "add", text: line });
    } else if (inHunk && (sign === " " || line === "") && oldLeft > 0 && newLeft > 0) {
      oldLeft -= 1;
      newLeft -= 1;
      rows.push({ kind: "ctx", text: line });
    } else {
      oldLeft = 0;
      newLeft = 0;
      rows.push({ kind: /^(---|\+\+\+) /.test(line) ? "file" : "text", text: line });
    }
  }
  return rows;
}

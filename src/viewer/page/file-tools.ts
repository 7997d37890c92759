// The file tools in the conversation: an edit is shown as a diff (old_string's lines removed,
// new_string's added, one replacement after another), a write as its file's content added, a
// read as one line naming the file and the lines asked for; a result that holds a unified diff
// is coloured the same way. Everything is text nodes: a "<script>" in a file stays text.

import {
  contentRows,
  fileToolView,
  type Row,
  replacementRows,
  unifiedDiffRows,
} from "./diff-rows.js";
import { element } from "./dom.js";
import { foldedRows } from "./fold.js";

/** The body of a file tool's call card, or null when the call is not one (or malformed). */
export function renderFileToolCall(name: string, input: unknown): HTMLElement[] | null {
  const view = fileToolView(name, input);
  if (!view) return null;
  switch (view.tool) {
    case "read":
      return [fileHeader(view.path, view.range ? [view.range] : [])];
    case "write": {
      const rows = contentRows(view.content);
      const size = { lines: rows.length, chars: view.content.length };
      return [fileHeader(view.path, []), foldedRows(rows, size)];
    }
    case "edit": {
      const { replacements } = view;
      const several = replacements.length > 1;
      const rows = several
        ? replacements.flatMap((replacement, index) => [
            {
              kind: "hunk" as const,
              text: `edit ${index + 1} of ${replacements.length}${replacement.replaceAll ? " · replace all" : ""}`,
            },
            ...replacementRows(replacement),
          ])
        : replacements.flatMap(replacementRows);
      const tags = several
        ? [`${replacements.length} edits`]
        : replacements[0]?.replaceAll
          ? ["replace all"]
          : [];
      const chars = replacements.reduce(
        (sum, { oldString, newString }) => sum + oldString.length + newString.length,
        0,
      );
      const shown: Row[] = rows.length > 0 ? rows : [{ kind: "note", text: "(no change)" }];
      return [fileHeader(view.path, tags), foldedRows(shown, { lines: shown.length, chars })];
    }
  }
}

/** A result holding a unified diff, its first line as the headline; null for any other. */
export function renderDiffResult(content: string): HTMLElement | null {
  const rows = unifiedDiffRows(content);
  return rows && foldedRows(rows, { lines: rows.length, chars: content.length });
}

function fileHeader(path: string, tags: string[]): HTMLElement {
  return element("div", { className: "file-header" }, [
    element("code", { className: "path" }, [path]),
    ...tags.map((tag) => element("span", { className: "tag" }, [tag])),
  ]);
}

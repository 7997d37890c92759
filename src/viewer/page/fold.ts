// Long content shows its first lines and a summary to unfold the rest, which is built only
// when unfolded: plain text (a command's output) and rows of a diff (an edit, a written file).

import type { Row } from "./diff-rows.js";
import { element, lazyDetails } from "./dom.js";
import { formatCount } from "./format.js";

const FOLD_LINES = 14;
const FOLD_CHARS = 1_500;
const PREVIEW_LINES = 6;
const PREVIEW_CHARS = FOLD_CHARS / 2;

/** How much content there is, as the fold's summary counts it. */
export interface ContentSize {
  lines: number;
  chars: number;
}

export function foldedText(text: string): HTMLElement {
  const lines = text.split("\n");
  const size = { lines: lines.length, chars: text.length };
  if (!isLong(size)) return element("pre", {}, [text]);
  const preview = lines.slice(0, PREVIEW_LINES).join("\n").slice(0, PREVIEW_CHARS);
  return fold(size, element("pre", { className: "preview" }, [`${preview}\n…`]), () =>
    element("pre", {}, [text]),
  );
}

/** Rows of a diff, each line coloured by its kind. */
export function foldedRows(rows: Row[], size: ContentSize): HTMLElement {
  if (!isLong(size) && rows.length <= FOLD_LINES) return diffBlock(rows);
  const preview = diffBlock([...previewRows(rows), { kind: "text", text: "…" }]);
  preview.classList.add("preview");
  return fold(size, preview, () => diffBlock(rows));
}

/** One block element per line, so a line's colour spans the panel's width. */
export function diffBlock(rows: Row[]): HTMLElement {
  return element(
    "pre",
    { className: "diff" },
    rows.map((row) => element("span", { className: row.kind }, [row.text])),
  );
}

function isLong(size: ContentSize): boolean {
  return size.lines > FOLD_LINES || size.chars > FOLD_CHARS;
}

function previewRows(rows: Row[]): Row[] {
  const preview: Row[] = [];
  let chars = 0;
  for (const row of rows.slice(0, PREVIEW_LINES)) {
    const text = row.text.slice(0, PREVIEW_CHARS - chars);
    preview.push({ kind: row.kind, text });
    chars += text.length + 1;
    if (chars >= PREVIEW_CHARS) break;
  }
  return preview;
}

function fold(size: ContentSize, preview: HTMLElement, body: () => HTMLElement): HTMLElement {
  const summary = element("summary", {}, [
    `Show all ${formatCount(size.lines)} lines (${formatCount(size.chars)} characters)`,
  ]);
  const details = lazyDetails(summary, body);
  details.className = "fold";
  return element("div", { className: "folded" }, [preview, details]);
}

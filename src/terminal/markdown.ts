// Renders a Markdown answer for the terminal while it streams in. Text arrives in small
// pieces; only complete lines are looked at, and only to find where a block ends (a paragraph
// at a blank line, a code block at its closing fence, a heading or a list item at its line's
// end). Each finished block is parsed once (marked) and printed once; the unfinished tail
// waits for more text or for end(). Because every decision is made on whole lines, how the
// text was cut into pieces never changes what is printed.

import { Lexer } from "marked";
import { renderBlocks } from "./markdown-render.js";

export interface MarkdownStreamOptions {
  /** Columns to wrap prose at (code and tables are not wrapped). */
  width: number;
  /** Whether to style with escape sequences. */
  color: boolean;
}

export interface MarkdownStream {
  /** Adds streamed text; prints every block it completes. */
  push(text: string): void;
  /** Prints whatever is still held back (an unfinished paragraph, an unclosed code block). */
  end(): void;
}

/** A list item whose content later lines may continue (indented to its content column). */
interface OpenItem {
  /** Source column where the item's content starts. */
  content: number;
  /** Output column where it is shown. */
  pad: number;
}

/** Lines held back until their block ends, and where they sit. */
interface Pending {
  kind: "text" | "fence";
  lines: string[];
  /** Source columns removed from each line (the list item it continues). */
  dedent: number;
  /** Output columns it is shown at. */
  pad: number;
  /** For a fence: its character and length, which the closing fence must match. */
  fence?: string;
}

const LIST_ITEM = /^([-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;
const FENCE = /^(`{3,}(?=[^`]*$)|~{3,})/;
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
const THEMATIC_BREAK = /^([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;

export function createMarkdownStream(
  write: (text: string) => unknown,
  options: MarkdownStreamOptions,
): MarkdownStream {
  let tail = "";
  let pending: Pending | undefined;
  let items: OpenItem[] = [];
  let printed = false;
  let blankBefore = false;

  const print = (tokensSource: string, pad: number, depth: number) => {
    const style = { width: options.width - pad, color: options.color };
    const lines = renderBlocks(Lexer.lex(tokensSource, { gfm: true }), style, depth);
    if (lines.length === 0) return;
    const margin = " ".repeat(pad);
    const text = lines.map((line) => (line ? margin + line : line)).join("\n");
    write(`${printed && blankBefore ? "\n" : ""}${text}\n`);
    printed = true;
    blankBefore = false;
  };

  const flush = () => {
    if (!pending) return;
    const { lines, pad } = pending;
    pending = undefined;
    print(lines.join("\n"), pad, 0);
  };

  const hold = (line: string, where: Omit<Pending, "lines">) => {
    pending = { ...where, lines: [dedentLine(line, where.dedent)] };
  };

  const takeLine = (raw: string) => {
    const line = expandIndent(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (pending?.kind === "fence") {
      const body = dedentLine(line, pending.dedent);
      pending.lines.push(body);
      if (closesFence(body, pending.fence ?? "```")) flush();
      return;
    }
    if (line.trim() === "") {
      flush();
      blankBefore = true;
      return;
    }

    const indent = line.length - line.trimStart().length;
    // Items this line is not indented into are finished.
    while (items.length > 0 && (items.at(-1)?.content ?? 0) > indent) items.pop();
    const parent = items.at(-1);
    const base = parent?.content ?? 0;
    const pad = parent?.pad ?? 0;
    const rest = line.slice(indent);

    if (indent - base > 3) return continueText(line, base, pad);
    if (pending && SETEXT_UNDERLINE.test(rest)) {
      pending.lines.push(dedentLine(line, pending.dedent));
      return flush();
    }

    const item = THEMATIC_BREAK.test(rest) ? null : LIST_ITEM.exec(rest);
    if (item) {
      flush();
      const marker = item[1] ?? "-";
      const spaces = item[0].length - marker.length;
      const content = indent + marker.length + (spaces === 0 || spaces > 4 ? 1 : spaces);
      print(rest, pad, items.length);
      items.push({ content, pad: pad + marker.length + 1 });
      return;
    }
    const fence = FENCE.exec(rest);
    if (fence) {
      flush();
      return hold(line, { kind: "fence", dedent: base, pad, fence: fence[1] });
    }
    if (THEMATIC_BREAK.test(rest) || ATX_HEADING.test(rest)) {
      flush();
      return print(rest, pad, 0);
    }
    continueText(line, base, pad);
  };

  const continueText = (line: string, base: number, pad: number) => {
    if (pending) pending.lines.push(dedentLine(line, pending.dedent));
    else hold(line, { kind: "text", dedent: base, pad });
  };

  return {
    push(text) {
      if (!text.includes("\n")) {
        tail += text;
        return;
      }
      const lines = (tail + text).split("\n");
      tail = lines.pop() ?? "";
      for (const line of lines) takeLine(line);
    },
    end() {
      if (tail) takeLine(tail);
      tail = "";
      flush();
      items = [];
    },
  };
}

/** Whether `line` closes a code block opened by `fence` (same character, at least as long). */
function closesFence(line: string, fence: string): boolean {
  const trimmed = line.trim();
  const indent = line.length - line.trimStart().length;
  return (
    indent <= 3 && trimmed.length >= fence.length && [...trimmed].every((char) => char === fence[0])
  );
}

/** Tabs in the indentation become spaces (to the next multiple of 4), as Markdown counts them. */
function expandIndent(line: string): string {
  const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
  if (!indent.includes("\t")) return line;
  let columns = 0;
  for (const char of indent) columns = char === "\t" ? columns + 4 - (columns % 4) : columns + 1;
  return " ".repeat(columns) + line.slice(indent.length);
}

/** `line` without up to `columns` spaces of indentation. */
function dedentLine(line: string, columns: number): string {
  let cut = 0;
  while (cut < columns && line[cut] === " ") cut++;
  return line.slice(cut);
}

// Turns the tokens marked parses from one Markdown block into lines for a terminal: styles as
// ANSI escape sequences, prose wrapped to the width, code highlighted, tables aligned. Code and
// tables are never wrapped: a wrapped line of either reads worse than one the terminal cuts.

import type { MarkedToken, Token, Tokens } from "marked";
import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";
import { highlightCode } from "./markdown-code.js";

export interface BlockStyle {
  /** Columns available to the block. */
  width: number;
  /** Whether to use escape sequences; without them only the layout remains. */
  color: boolean;
}

const BULLETS = ["•", "◦", "▪"];
const HEADING_STYLE = ["1;4", "1", "1;3"];
const MIN_WIDTH = 20;

/** The lines of a run of block tokens; `depth` is how deep in lists they sit (for bullets). */
export function renderBlocks(tokens: readonly Token[], style: BlockStyle, depth = 0): string[] {
  return tokens.flatMap((token) => renderBlock(token, style, depth));
}

function renderBlock(token: Token, style: BlockStyle, depth: number): string[] {
  const width = Math.max(style.width, MIN_WIDTH);
  const paint = painter(style.color);
  const block = token as MarkedToken;
  switch (block.type) {
    case "space":
    case "def":
      return [];
    case "heading": {
      const code = HEADING_STYLE[Math.min(block.depth, 3) - 1] ?? "1";
      return wrap(paint(code, inline(block.tokens, style.color, [code])), width);
    }
    case "paragraph":
      return wrap(inline(block.tokens, style.color), width);
    case "text":
      return wrap(block.tokens ? inline(block.tokens, style.color) : block.text, width);
    case "code":
      return style.color ? highlightCode(block.text, block.lang) : block.text.split("\n");
    case "blockquote":
      return renderBlocks(block.tokens, { ...style, width: width - 2 }, depth).map(
        (line) => `${paint("2", "│")} ${line}`,
      );
    case "list":
      return renderList(block, { ...style, width }, depth);
    case "table":
      return renderTable(block, style.color);
    case "hr":
      return [paint("2", "─".repeat(width))];
    case "html":
      return block.text.replace(/\n+$/, "").split("\n");
    default:
      return "raw" in token ? token.raw.replace(/\n+$/, "").split("\n") : [];
  }
}

function renderList(list: Tokens.List, style: BlockStyle, depth: number): string[] {
  const paint = painter(style.color);
  const start = typeof list.start === "number" ? list.start : 1;
  return list.items.flatMap((item, index) => {
    const marker = item.task
      ? item.checked
        ? "☑"
        : "☐"
      : list.ordered
        ? `${start + index}.`
        : (BULLETS[depth % BULLETS.length] ?? "•");
    const indent = " ".repeat(stringWidth(marker) + 1);
    const content = item.tokens.filter((token) => token.type !== "checkbox");
    const lines = renderBlocks(
      content,
      { ...style, width: style.width - indent.length },
      depth + 1,
    );
    return (lines.length > 0 ? lines : [""]).map((line, row) =>
      row === 0 ? `${paint("2", marker)} ${line}` : line ? `${indent}${line}` : line,
    );
  });
}

function renderTable(table: Tokens.Table, color: boolean): string[] {
  const paint = painter(color);
  const header = table.header.map((cell) => paint("1", inline(cell.tokens, color, ["1"])));
  const rows = table.rows.map((row) => row.map((cell) => inline(cell.tokens, color)));
  const widths = header.map((cell, column) =>
    Math.max(stringWidth(cell), ...rows.map((row) => stringWidth(row[column] ?? ""))),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => align(cell, widths[column] ?? 0, table.align[column] ?? null))
      .join(paint("2", " │ "))
      .trimEnd();
  const rule = paint("2", widths.map((width) => "─".repeat(width)).join("─┼─"));
  return [line(header), rule, ...rows.map(line)];
}

function align(cell: string, width: number, how: Tokens.TableCell["align"]): string {
  const room = Math.max(0, width - stringWidth(cell));
  if (how === "right") return " ".repeat(room) + cell;
  if (how === "center") {
    const left = Math.floor(room / 2);
    return " ".repeat(left) + cell + " ".repeat(room - left);
  }
  return cell + " ".repeat(room);
}

/**
 * Inline tokens as one string. A styled span ends with a full reset and then restores the
 * styles of the spans around it (`outer`), so any nesting (a link inside bold) comes out right.
 */
function inline(tokens: readonly Token[], color: boolean, outer: string[] = []): string {
  const span = (code: string, inner: (outer: string[]) => string) => {
    if (!color) return inner(outer);
    const restore = outer.map((code) => `\x1b[${code}m`).join("");
    return `\x1b[${code}m${inner([...outer, code])}\x1b[0m${restore}`;
  };
  const nested = (children: readonly Token[]) => (styles: string[]) =>
    inline(children, color, styles);
  return tokens
    .map((token) => {
      const piece = token as MarkedToken;
      switch (piece.type) {
        case "strong":
          return span("1", nested(piece.tokens));
        case "em":
          return span("3", nested(piece.tokens));
        case "del":
          return span("9", nested(piece.tokens));
        case "codespan":
          return span("36", () => piece.text);
        case "link": {
          const text = span("4;34", nested(piece.tokens));
          const shown = piece.href.replace(/^mailto:/, "");
          return shown === piece.text ? text : `${text} ${span("2", () => `(${piece.href})`)}`;
        }
        case "image":
          return span("2", () => `[image: ${piece.text}] (${piece.href})`);
        case "br":
          return "\n";
        case "checkbox":
          return "";
        case "text":
          return piece.tokens ? inline(piece.tokens, color, outer) : piece.text;
        case "escape":
        case "html":
          return piece.text;
        default:
          return "tokens" in token && token.tokens
            ? inline(token.tokens, color, outer)
            : (token.raw ?? "");
      }
    })
    .join("");
}

function wrap(text: string, width: number): string[] {
  return wrapAnsi(text, width, { hard: false, trim: true }).split("\n");
}

function painter(color: boolean) {
  return (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
}

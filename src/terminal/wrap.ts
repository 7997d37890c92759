// Prose for a person at a terminal, wrapped to its width between words: a terminal breaks a
// line that is too long wherever its last column falls, inside a word ("appl" / "y."). A word
// wider than the whole row (a long path) is cut where the row ends. Code (a command, a diff,
// a command's output) is left to the terminal, as the Markdown renderer leaves code blocks.
// Where the output is not a terminal of a known width (a pipe, a file, a pseudo-terminal nobody
// sized), text is left as it is, so what scripts read never changes.

import { stringWidth, wrapAnsi } from "./text-width.js";

/** What wrapping needs of an output: whether it is a terminal, and how wide it is now. */
export interface Screen {
  isTTY?: boolean;
  columns?: number;
}

/** Below this, rows beside a label or indentation would hold a word or two: they start at 0. */
const MIN_ROOM = 20;
/** Escape sequences of colour and style at the start of a line, then its indentation. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence starts with ESC
const LEADING = /^((?:\x1b\[[\d;]*m)*)( *)/;

/** The columns to wrap text for `output` at, read anew each time (a terminal can be resized). */
export function columnsOf(output: Screen | object): number | undefined {
  const screen = output as Screen;
  return screen.isTTY === true && screen.columns ? screen.columns : undefined;
}

/**
 * `text` with each of its lines wrapped to `columns`; the rows of an indented line keep its
 * indentation. Unchanged when `columns` is undefined.
 */
export function wrapText(text: string, columns: number | undefined): string {
  if (!columns) return text;
  return text
    .split("\n")
    .map((line) => {
      const [, styles = "", spaces = ""] = LEADING.exec(line) ?? [];
      return beside(spaces, styles + line.slice(styles.length + spaces.length), columns);
    })
    .join("\n");
}

/**
 * `label` (`⏺ `, a command's name padded to a column) with `text` wrapped beside it: the rows
 * after the first start under the text's first column. Without `columns`, the two joined.
 */
export function beside(label: string, text: string, columns: number | undefined): string {
  if (!columns || stringWidth(`${label}${text}`) <= columns) return `${label}${text}`;
  const width = stringWidth(label);
  const room = columns - width;
  if (room < MIN_ROOM) return wrapAnsi(`${label}${text}`, columns, { hard: true, trim: true });
  const rows = wrapAnsi(text, room, { hard: true, trim: true }).split("\n");
  return rows.map((row, index) => (index === 0 ? label : " ".repeat(width)) + row).join("\n");
}

/** Writes `text` and a newline to `output`, wrapped to its width. */
export function writeWrapped(output: Screen & { write(text: string): unknown }, text: string) {
  output.write(`${wrapText(text, columnsOf(output))}\n`);
}

// Prose for a person at a terminal, wrapped to its width between words: a terminal breaks a
// line that is too long wherever its last column falls, inside a word ("appl" / "y."). A word
// wider than the whole row (a long path) is cut where the row ends. This is the one rule for
// all that agentloop prints to a terminal: answers, notices, questions, /help and --help. Code (a command, a diff,
// a command's output) is left to the terminal, as the Markdown renderer leaves code blocks.
// Where the output is not a terminal of a known width (a pipe, a file, a pseudo-terminal nobody
// sized), text is left as it is, so what scripts read never changes.

import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";

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

/** A line of a usage text: a label (a command, a flag) padded to the column its words start in. */
const LABELLED = /^( *\S.*?\S {2,})(\S.*)$/;

/**
 * A usage text (`--help`) wrapped to `columns`: each entry, a label with its description or a
 * paragraph, is written for 100 columns with its later rows indented (under the description, or
 * hanging); those rows are joined and the entry wrapped again at the width the terminal has,
 * its later rows indented as before. Unchanged when `columns` is undefined.
 */
export function wrapUsage(text: string, columns: number | undefined): string {
  if (!columns) return text;
  const indentOf = (line: string) => line.length - line.trimStart().length;
  const entries: { first: string; rest: string[]; hang: number }[] = [];
  for (const line of text.split("\n")) {
    const entry = entries.at(-1);
    // A row indented further than its entry's first goes on with it, unless that first row is
    // a heading ("Options:"), whose entries are indented under it.
    const goesOn =
      entry !== undefined &&
      line.trim() !== "" &&
      entry.first.trim() !== "" &&
      !entry.first.endsWith(":") &&
      indentOf(line) > indentOf(entry.first);
    if (goesOn) {
      entry.rest.push(line.trim());
      entry.hang = indentOf(line);
    } else {
      entries.push({ first: line, rest: [], hang: indentOf(line) });
    }
  }
  return entries
    .map(({ first, rest, hang }) => {
      const [, , spaces = ""] = LEADING.exec(first) ?? [];
      const labelled = LABELLED.exec(first);
      if (labelled) {
        const [, label = "", words = ""] = labelled;
        const description = [words, ...rest].join(" ");
        // A label too wide to leave room beside it: the description goes on under its indent.
        if (columns - stringWidth(label) < MIN_ROOM) {
          return beside(spaces, `${label.trimStart()}${description}`, columns);
        }
        return beside(label, description, columns);
      }
      const words = [first.trimStart(), ...rest].join(" ");
      if (rest.length === 0) return beside(spaces, words, columns);
      // A paragraph whose later rows hang under its first words.
      const rows = wrapAnsi(words, Math.max(columns - hang, MIN_ROOM), { hard: true, trim: true });
      return rows
        .split("\n")
        .map((row, index) => (index === 0 ? spaces : " ".repeat(hang)) + row)
        .join("\n");
    })
    .join("\n");
}

/** Writes `text` and a newline to `output`, wrapped to its width. */
export function writeWrapped(output: Screen & { write(text: string): unknown }, text: string) {
  output.write(`${wrapText(text, columnsOf(output))}\n`);
}

/** Writes a usage text (`--help`) and a newline to `output`, wrapped to its width. */
export function writeUsage(output: Screen & { write(text: string): unknown }, text: string) {
  output.write(`${wrapUsage(text, columnsOf(output))}\n`);
}

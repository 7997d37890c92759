// What a person would see: the bytes a terminal was sent, played into a terminal emulator
// (xterm.js, headless) of a given width, read back as lines. Escape sequences do what they do
// on a real screen, so a line erased is gone and a line drawn twice is there twice; a line too
// long for a row goes on in the next, as the terminal breaks it (anywhere, inside a word too).

import xterm from "@xterm/headless";
import { TERMINAL_ROWS } from "./terminal.js";

/**
 * Every line the terminal shows or has scrolled off, top to bottom, without trailing blanks;
 * a line the terminal wrapped is one line again, so that a test can match it whole.
 */
export async function screenLines(bytes: string, columns: number): Promise<string[]> {
  const lines: string[] = [];
  for (const row of await screenRows(bytes, columns)) {
    if (row.wrapped && lines.length > 0) lines[lines.length - 1] += row.text;
    else lines.push(row.text);
  }
  const trimmed = lines.map((line) => line.trimEnd());
  while (trimmed.at(-1) === "") trimmed.pop();
  return trimmed;
}

export interface ScreenRow {
  /** What the row shows, to its last column. */
  text: string;
  /** The terminal put it there because the row above ran out of columns, not a newline. */
  wrapped: boolean;
}

/** Every row the terminal shows or has scrolled off, top to bottom, as the terminal laid it out. */
export async function screenRows(bytes: string, columns: number): Promise<ScreenRow[]> {
  const terminal = new xterm.Terminal({
    cols: columns,
    rows: TERMINAL_ROWS,
    scrollback: 10_000,
    allowProposedApi: true,
  });
  // A pseudo-terminal turns "\n" into "\r\n" on the way out; the bytes read have it already.
  await new Promise<void>((done) => terminal.write(bytes, done));
  const buffer = terminal.buffer.active;
  const rows: ScreenRow[] = [];
  for (let row = 0; row < buffer.length; row++) {
    const line = buffer.getLine(row);
    if (line) rows.push({ text: line.translateToString(), wrapped: line.isWrapped });
  }
  terminal.dispose();
  return rows;
}

// Turns what a program wrote for a terminal into plain text a model can read: escape sequences
// removed, progress bars reduced to where they ended, stray control characters dropped, and
// binary junk recognised so it can be summarised instead of sent.

// Escape sequences: CSI (colours, cursor moves), OSC/DCS/APC/PM/SOS strings ended by BEL or
// ESC \, two-byte escapes, and, at the very end, a sequence cut off by truncation.
const ESCAPE_SEQUENCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes are control characters
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][\s\S]*?(?:\x07|\x1b\\)|\x1b[\]PX^_][^\x07\x1b]*$|\x1b\[[0-?]*[ -/]*$|\x1b[ -/]*[0-~]|\x1b$/g;

// Control characters other than tab and newline (C0, DEL and C1), after escapes are gone.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters we remove
const CONTROL_CHARACTER = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

// Characters that do not occur in text: NUL, undecodable bytes and control characters other
// than the whitespace, backspace and escape that terminal output uses.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters we count
const NON_TEXT = /[\x00-\x07\x0e-\x1a\x1c-\x1f\x7f\ufffd]/g;

/** Share of non-text characters above which output is treated as binary. */
const BINARY_RATIO = 0.3;

export function cleanTerminalText(text: string): string {
  const withoutEscapes = text.replace(/\r\n/g, "\n").replace(ESCAPE_SEQUENCE, "");
  return collapseCarriageReturns(withoutEscapes).replace(CONTROL_CHARACTER, "");
}

/**
 * Keeps, for every line, what it showed last. A progress bar rewrites its line after `\r`,
 * usually erasing it first (with an escape sequence we have removed) or padding it with
 * spaces, so the last non-blank segment, without its padding, is what a person saw when the
 * program moved on.
 */
export function collapseCarriageReturns(text: string): string {
  if (!text.includes("\r")) return text;
  return text
    .split("\n")
    .map((line) => {
      if (!line.includes("\r")) return line;
      const segments = line.split("\r").map((segment) => segment.trimEnd());
      return segments.findLast((segment) => segment.length > 0) ?? "";
    })
    .join("\n");
}

/** True for text with a NUL or mostly undecodable bytes and control characters. */
export function looksBinary(text: string): boolean {
  if (text.includes("\0")) return true;
  const nonText = text.match(NON_TEXT)?.length ?? 0;
  return text.length > 0 && nonText / text.length > BINARY_RATIO;
}

// A text's lines as `read` numbers them: a last line without a newline counts, a final newline
// does not start another line, and an empty text has none.

export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

export function countLines(text: string): number {
  return splitLines(text).length;
}

// How a bash command ended, read from the bracketed status lines the bash tool appends to
// its result ("[exit code 1]", "[timed out after 120 s; ...]", possibly followed by notes
// such as "[the working directory is now /tmp]"), for the result card's status.

const ENDINGS: [RegExp, (match: RegExpExecArray) => string][] = [
  [/\[exit code (-?\d+)[^\]]*\]$/, (match) => `exit ${match[1]}`],
  [/\[killed by signal (\w+)\]$/, (match) => `killed by ${match[1]}`],
  [/\[(timed out after [\d.]+ s)[^\]]*\]$/, (match) => match[1] ?? "timed out"],
  [/\[interrupted by the user[^\]]*\]$/, () => "interrupted"],
  [/\[the command could not be started[^\]]*\]$/, () => "did not start"],
];

/** A short phrase such as "exit 0", or null when the result does not say. */
export function resultEnding(content: string): string | null {
  const lines = content.trimEnd().split("\n");
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const line = lines[index] ?? "";
    if (!line.startsWith("[")) return null;
    for (const [pattern, describe] of ENDINGS) {
      const match = pattern.exec(line);
      if (match) return describe(match);
    }
  }
  return null;
}

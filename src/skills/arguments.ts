// Claude Code's substitutions in a skill's or command's body: `$ARGUMENTS` is everything after
// the name as typed, `$1`...`$9` its words split as a shell would (quotes group words, and
// are dropped); a missing word is empty. A body that uses none of them gets the arguments
// appended as `ARGUMENTS: ...`, as Claude Code does, so they are never lost.
// (https://code.claude.com/docs/en/slash-commands, "Arguments")

const PLACEHOLDER = /\$ARGUMENTS\b|\$([1-9])(?!\d)/g;

export function substituteArguments(body: string, argumentsText: string): string {
  const words = splitWords(argumentsText);
  let used = false;
  const substituted = body.replace(PLACEHOLDER, (_match, digit: string | undefined) => {
    used = true;
    return digit === undefined ? argumentsText : (words[Number(digit) - 1] ?? "");
  });
  if (used || argumentsText === "") return substituted;
  return `${substituted}\n\nARGUMENTS: ${argumentsText}`;
}

/** Words as a shell splits them: by blanks, with '...' and "..." keeping blanks inside. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g)) {
    const [, double, single, plain] = match;
    words.push(double !== undefined ? double.replace(/\\(.)/g, "$1") : (single ?? plain ?? ""));
  }
  return words;
}

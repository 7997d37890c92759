// What the shell parser hands to the permission rules: the simple commands a script runs, in
// source order, and the constructs that could run code the rules cannot see.

/** One word of a command line. `value` is its text after quote removal, or null when the word
 * depends on something only known at run time (a variable, a substitution, a glob of braces). */
export interface Word {
  text: string;
  value: string | null;
}

export interface Redirect {
  /** The operator as written: `>`, `>>`, `&>`, `<`, `<<`, `>&`, ... */
  operator: string;
  target: Word | null;
  text: string;
}

export interface SimpleCommand {
  /** The command name and its arguments; empty for a bare redirection such as `> file`. */
  words: Word[];
  redirects: Redirect[];
  /** Names assigned just for this command (`FOO=1 cmd`). */
  assignments: string[];
}

/** A construct that may run commands hidden in data, so nothing around it can be read-only. */
export interface Hazard {
  text: string;
  why: string;
}

export type ParsedScript =
  | { kind: "parsed"; commands: SimpleCommand[]; hazards: Hazard[] }
  | { kind: "unparsable"; reason: string };

export const literal = (value: string): Word => ({ text: value, value });

export function wordsText(words: Word[]): string {
  return words.map((word) => word.text).join(" ");
}

const OUTPUT_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);

/** The file a redirection writes to, or null when it only reads or duplicates a descriptor. */
export function writtenTarget(redirect: Redirect): Word | null {
  if (OUTPUT_OPERATORS.has(redirect.operator)) return redirect.target;
  // `>&file` (not `>&2` or `>&-`) sends both streams to a file.
  if (redirect.operator === ">&" && redirect.target && !/^(\d+|-)$/.test(redirect.target.text)) {
    return redirect.target;
  }
  return null;
}

/** Device files that discard or echo output: writing to them changes nothing. */
export function isHarmlessSink(path: string): boolean {
  return /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/.test(path);
}

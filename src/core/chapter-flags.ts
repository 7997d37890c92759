// A chapter's own flags, declared once in its src/NAME/chapter.ts: the command line's parser and
// --help read them from the session's list (src/assembly/parts.ts), and the chapter's part gets
// what was given (PartContext.flags), so a new flag touches no file outside its chapter's folder.

/** One flag of a chapter, as `--NAME` on the command line. */
export interface ChapterFlag {
  /** Its name without the dashes; no other flag, built in or a chapter's, may have it. */
  name: string;
  /** boolean: true when given; string: takes the next word as its value. */
  kind: "boolean" | "string";
  /** For a value, the word --help shows after the flag: `--goal CONDITION`. */
  valueName?: string;
  /** Its lines in --help, as wide as the others there: the first beside it, the rest under. */
  help: readonly string[];
  /**
   * For a value: what the text becomes, called once while the command line is read. It throws a
   * ConfigError of one sentence that names `flag` (`--goal-max-turns`) when the text will not do.
   * Absent: the text as given.
   */
  check?(text: string, flag: string): string | number;
}

/** What a chapter says of its flags (src/NAME/chapter.ts), spread into its entry of the list. */
export interface ChapterFlags {
  /** Its flags, in the order --help lists them. */
  flags?: readonly ChapterFlag[];
}

/**
 * The chapters' flags a front end was given, by name: true for a boolean one, the checked value
 * of one that takes a value. A flag not given is absent, and a front end without a command line
 * (an editor's request, a library user) gives none unless it sets them.
 */
export type FlagValues = Readonly<Record<string, string | number | boolean | undefined>>;

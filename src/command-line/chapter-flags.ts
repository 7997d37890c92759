// The chapters' own flags on the command line: each chapter declares its flags in its chapter.ts
// (core/chapter-flags.ts says how), and the session's list carries them here, so the parser,
// --help and the values handed to the parts all come from that one declaration.

import type { ChapterFlag, FlagValues } from "../core/chapter-flags.js";

/** The column a flag's help starts at in --help, as the built-in flags' does. */
const HELP_COLUMN = 33;

/** The flags as node:util's parseArgs takes them. */
export function parseArgsOptions(
  flags: readonly ChapterFlag[],
): Record<string, { type: "boolean" | "string" }> {
  return Object.fromEntries(flags.map((flag) => [flag.name, { type: flag.kind }]));
}

/**
 * What the parts get of the flags parseArgs read: each one given, its value checked (a
 * ConfigError of one sentence when it will not do); one not given is absent.
 */
export function flagValues(
  flags: readonly ChapterFlag[],
  parsed: Readonly<Record<string, unknown>>,
): FlagValues {
  const values: Record<string, string | number | boolean> = {};
  for (const flag of flags) {
    const given = parsed[flag.name];
    if (typeof given === "boolean") values[flag.name] = given;
    if (typeof given === "string")
      values[flag.name] = flag.check?.(given, `--${flag.name}`) ?? given;
  }
  return values;
}

/** Their lines in --help's options, in the list's order, aligned with the built-in ones. */
export function flagUsage(flags: readonly ChapterFlag[]): string {
  return flags
    .flatMap((flag) => {
      const named = flag.valueName ? `--${flag.name} ${flag.valueName}` : `--${flag.name}`;
      const beside = `  ${named}`.padEnd(HELP_COLUMN - 1);
      const under = " ".repeat(HELP_COLUMN - 1);
      return flag.help.map((line, index) => `${index === 0 ? beside : under} ${line}`);
    })
    .join("\n");
}

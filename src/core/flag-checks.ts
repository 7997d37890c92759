// Checks of a flag's value that the command line and the chapters' flags (chapter-flags.ts)
// share, so a mistake reads the same whichever flag it is made in.

import { ConfigError } from "./errors.js";

/** `text` as a whole number of at least 1, or a ConfigError naming `flag`. */
export function positiveInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(`${flag} must be a whole number of at least 1, got "${text}".`);
  }
  return value;
}

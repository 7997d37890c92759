// A chapter's own flags on the command line: declared once in its chapter.ts, they become
// parseArgs' options, their values as the part gets them, and their lines in --help. Held here
// with a chapter made up for the test, so nothing of the real chapters is needed.

import { parseArgs } from "node:util";
import { describe, expect, it } from "vitest";
import { flagUsage, flagValues, parseArgsOptions } from "../src/command-line/chapter-flags.js";
import type { ChapterFlag } from "../src/core/chapter-flags.js";
import { ConfigError } from "../src/core/errors.js";
import { positiveInteger } from "../src/core/flag-checks.js";

const STAMPS: readonly ChapterFlag[] = [
  { name: "stamps", kind: "boolean", help: ["stamp every answer"] },
  {
    name: "stamp-ink",
    kind: "string",
    valueName: "COLOUR",
    help: ["the ink of the stamps,", "red unless told"],
  },
  {
    name: "stamp-limit",
    kind: "string",
    valueName: "N",
    help: ["at most N"],
    check: positiveInteger,
  },
];

const parsed = (args: string[]) =>
  parseArgs({ args, options: parseArgsOptions(STAMPS), strict: true }).values;

describe("a chapter's flags on the command line", () => {
  it("are parsed as their kind says, and only the given ones reach the part", () => {
    const given = parsed(["--stamps", "--stamp-ink", "blue"]);
    expect(flagValues(STAMPS, given)).toEqual({ stamps: true, "stamp-ink": "blue" });
    expect(flagValues(STAMPS, parsed([]))).toEqual({});
    expect(() => parsed(["--stamps=yes"])).toThrow(/'--stamps' does not take an argument/);
    expect(() => parsed(["--stamp-ink"])).toThrow(/'--stamp-ink <value>' argument missing/);
  });

  it("go through their check, whose one sentence names the flag", () => {
    expect(flagValues(STAMPS, parsed(["--stamp-limit", "4"]))).toEqual({ "stamp-limit": 4 });
    const bad = () => flagValues(STAMPS, parsed(["--stamp-limit", "lots"]));
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow('--stamp-limit must be a whole number of at least 1, got "lots".');
  });

  it("are listed in --help with their value's word, the help in the options' column", () => {
    expect(flagUsage(STAMPS).split("\n")).toEqual([
      "  --stamps                       stamp every answer",
      "  --stamp-ink COLOUR             the ink of the stamps,",
      "                                 red unless told",
      "  --stamp-limit N                at most N",
    ]);
  });
});

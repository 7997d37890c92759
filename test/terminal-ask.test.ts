import { describe, expect, it } from "vitest";
import { parseAnswer } from "../src/terminal/ask.js";

describe("answers to a permission question", () => {
  it.each([
    ["y", "yes"],
    ["Yes", "yes"],
    ["a", "always"],
    ["always", "always"],
    ["n", "no"],
    ["", "no"],
    ["n use the test script instead", { no: "use the test script instead" }],
    ["please don't touch prod", { no: "please don't touch prod" }],
  ])("%j means %j", (line, expected) => {
    expect(parseAnswer(line, true)).toEqual(expected);
  });

  it("treats 'always' as a plain yes when no rule can be remembered", () => {
    expect(parseAnswer("a", false)).toBe("yes");
  });
});

import { describe, expect, it } from "vitest";
import { count, plural } from "../src/core/wording.js";

describe("numbers in tool results", () => {
  it("groups digits in threes and rounds to a whole number", () => {
    expect([0, 7, 999, 1000, 12_345, 1_234_567, 999.6].map(count)).toEqual([
      "0",
      "7",
      "999",
      "1,000",
      "12,345",
      "1,234,567",
      "1,000",
    ]);
    expect(count(-48_210)).toBe("-48,210");
  });

  it("says one thing or several", () => {
    expect(plural(1, "line")).toBe("1 line");
    expect(plural(2_500, "line")).toBe("2,500 lines");
    expect(plural(3, "match", "matches")).toBe("3 matches");
  });
});

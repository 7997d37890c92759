// A list of names and descriptions within a budget (src/core/fitted-list.ts), which the skills'
// catalog and the agent tool's list share: for any entries and any budget, the list fits
// whenever its names can, keeps every name in order, and drops names only when told how to
// say so.

import fc from "fast-check";
import { describe, it } from "vitest";
import { fitDescriptions, type ListEntry } from "../src/core/fitted-list.js";

const entry = fc.record({
  head: fc.stringMatching(/^- [a-z][a-z0-9-]{0,20}$/),
  description: fc.string({ maxLength: 300, size: "large" }),
  tail: fc.option(fc.stringMatching(/^ \([a-z/.]{1,30}\)$/), { nil: undefined }),
});
const entries = fc.array(entry, { maxLength: 40, size: "medium" });
const budget = fc.nat({ max: 3_000 });

/** Characters of the lines with a newline before each, as they are joined under a heading. */
const size = (lines: string[]) => lines.reduce((sum, line) => sum + 1 + line.length, 0);
const bare = (items: ListEntry[]) => items.map((item) => `${item.head}${item.tail ?? ""}`);
const unlisted = (count: number) => `- and ${count} more`;
const sameLines = (a: string[], b: string[]) => a.join("\n") === b.join("\n");

describe("fitting a list of descriptions to a budget", () => {
  it("keeps every name, in order, and stays within the budget whenever the names alone do", () => {
    fc.assert(
      fc.property(entries, budget, (items, room) => {
        const lines = fitDescriptions(items, room);
        const named = items.every(({ head, tail = "" }, index) => {
          const line = lines[index] ?? "";
          return line.startsWith(head) && line.endsWith(tail);
        });
        const fits = size(bare(items)) > room || size(lines) <= room;
        return lines.length === items.length && named && fits;
      }),
    );
  });

  it("keeps every description whole, on one line, when there is room for all", () => {
    fc.assert(
      fc.property(entries, (items) => {
        const lines = fitDescriptions(items, Number.POSITIVE_INFINITY);
        const whole = items.map(({ head, description, tail = "" }) => {
          return `${head}: ${description.replace(/\s+/g, " ").trim()}${tail}`;
        });
        return sameLines(lines, whole);
      }),
    );
  });

  it("told how to say so, leaves out the last names that do not fit and says how many", () => {
    fc.assert(
      fc.property(entries, budget, (items, room) => {
        const lines = fitDescriptions(items, room, unlisted);
        const last = lines.at(-1) ?? "";
        if (!/^- and \d+ more$/.test(last)) {
          return sameLines(lines, fitDescriptions(items, room)) && size(lines) <= room;
        }
        const kept = lines.length - 1;
        const saysHowMany = last === unlisted(items.length - kept) && kept < items.length;
        const firstNames = sameLines(lines.slice(0, -1), bare(items).slice(0, kept));
        const fits = room < size([unlisted(items.length)]) || size(lines) <= room;
        return saysHowMany && firstNames && fits;
      }),
    );
  });
});

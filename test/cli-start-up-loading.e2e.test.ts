// What the built CLI compiles before it does anything: the static imports of dist/cli.js and of
// the chunks they import in turn. What only a terminal needs is loaded when there is one, so a
// one-shot run into a pipe does not pay for it, and the rest comes as one chunk rather than
// dozens (docs/development.md, "Start-up").

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI } from "./support/cli-harness.js";

/** dist/cli.js and every chunk it imports statically (not through import()), transitively. */
function staticallyLoaded(entry: string): Map<string, string> {
  const loaded = new Map<string, string>();
  const visit = (file: string) => {
    if (loaded.has(file)) return;
    const code = readFileSync(file, "utf8");
    loaded.set(file, code);
    // esbuild writes `import"./x.js"` and `from"./x.js"`; a dynamic import is `import("./x.js")`.
    for (const [, path] of code.matchAll(/(?:\bimport|\bfrom)\s*"(\.{1,2}\/[^"]+)"/g)) {
      visit(join(dirname(file), path as string));
    }
  };
  visit(entry);
  return loaded;
}

describe("the built CLI's start-up", () => {
  it("does not load string-width and wrap-ansi until an output is a terminal", () => {
    const loaded = staticallyLoaded(CLI);
    // The walk found the start-up chunk beside dist/cli.js.
    expect(loaded.size).toBeGreaterThan(1);
    // string-width's emoji pattern, built at its top level (the costly part).
    const measuring = [...loaded].filter(([, code]) => code.includes("\\p{RGI_Emoji}"));
    expect(measuring.map(([file]) => file)).toEqual([]);
  });

  it("loads what it runs before main() as a few modules, not one per combination of commands", () => {
    // Each module costs the loader a resolution, a read and a link; esbuild alone cut the
    // start-up code into some fifty chunks (scripts/one-start-chunk.mjs).
    const loaded = staticallyLoaded(CLI);
    expect(loaded.size).toBeLessThanOrEqual(4);
    const code = [...loaded.values()].join("");
    // What a hello task runs before its request is among them: the assembly and the parts.
    for (const name of ["assembleSession", "createCheckpointsPart", "startMemoryPart"])
      expect(code).toContain(name);
  });
});

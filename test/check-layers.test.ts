// The layering check that `npm test` runs (scripts/check-layers.ts), held to what it must catch.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitStartedOutsideHelper, problemsIn, SOURCE_ROOT } from "../scripts/check-layers.js";

const file = (path: string) => join(SOURCE_ROOT, path);

describe("the layering check", () => {
  it("accepts imports that go to the same layer or down", () => {
    const graph = new Map([
      [file("loop.ts"), [file("core/messages.ts"), file("tools/toolbox.ts")]],
      [file("tools/toolbox.ts"), [file("core/messages.ts")]],
      [file("core/messages.ts"), []],
    ]);
    expect(problemsIn(graph)).toEqual([]);
  });

  it("names an import that goes up, from the part to the part above it", () => {
    const graph = new Map([
      [file("core/messages.ts"), [file("session/session-file.ts")]],
      [file("session/session-file.ts"), []],
    ]);
    expect(problemsIn(graph)).toEqual([
      "core/messages.ts imports session/session-file.ts, a part above its own",
    ]);
  });

  it("names a circle, even inside one part", () => {
    const graph = new Map([
      [file("batch/a.ts"), [file("batch/b.ts")]],
      [file("batch/b.ts"), [file("batch/a.ts")]],
    ]);
    expect(problemsIn(graph)).toEqual(["import circle: batch/a.ts -> batch/b.ts -> batch/a.ts"]);
  });

  it("names a file in a part the layers do not know", () => {
    const graph = new Map([[file("gadgets/x.ts"), []]]);
    expect(problemsIn(graph)).toEqual(['gadgets/x.ts: its part "gadgets" is in no layer']);
  });

  it("names two parts that import each other, though each import stays in its layer", () => {
    const graph = new Map([
      [file("repl/repl.ts"), [file("batch/pool.ts")]],
      [file("batch/pool.ts"), [file("repl/status.ts")]],
      [file("repl/status.ts"), []],
    ]);
    expect(problemsIn(graph)).toEqual(["parts import each other: batch -> repl -> batch"]);
  });

  it("names a file that starts git itself, and lets the hardened helper do it", () => {
    const sources = new Map([
      [file("worktrees/sneaky.ts"), 'execFileSync("git", ["status"]);'],
      [file("batch/also.ts"), "await spawn(`git`, args);"],
      [file("core/git.ts"), 'execFile("git", argv);'],
      [file("tools/bash.ts"), 'spawn("bash", ["-c", "git status"]);'],
    ]);
    expect(gitStartedOutsideHelper(sources)).toEqual([
      "worktrees/sneaky.ts starts git itself: run it through core/git.ts",
      "batch/also.ts starts git itself: run it through core/git.ts",
    ]);
  });
});

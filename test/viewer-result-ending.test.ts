import { describe, expect, it } from "vitest";
import { resultEnding } from "../src/viewer/page/result-ending.js";

describe("the ending shown on a bash result card", () => {
  it.each([
    ["total 24\n[exit code 0]", "exit 0"],
    ["No such file\n[exit code 1]\n", "exit 1"],
    ["[exit code 137 (a process was killed by SIGKILL)]", "exit 137"],
    ["partial\n[killed by signal SIGTERM]", "killed by SIGTERM"],
    [
      "[timed out after 120 s; the command and everything it started were killed]",
      "timed out after 120 s",
    ],
    ["[interrupted by the user; the command and everything it started were killed]", "interrupted"],
    ["[the command could not be started: spawn bash ENOENT]", "did not start"],
    ["ok\n[exit code 0]\n[the working directory is now /tmp]", "exit 0"],
  ])("reads %j as %j", (content, ending) => {
    expect(resultEnding(content)).toBe(ending);
  });

  it("says nothing when the result does not end with a status line", () => {
    expect(resultEnding('Unknown tool "grep". Available tools: bash.')).toBeNull();
    expect(resultEnding("the output mentions [exit code 3] mid-way\nand goes on")).toBeNull();
  });
});

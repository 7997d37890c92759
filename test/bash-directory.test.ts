import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bashTool, run, workspace } from "./support/bash-harness.js";

describe("the bash tool keeps the working directory between calls", () => {
  it("runs the next command where `cd` left off, and says where that is", async () => {
    const tool = bashTool();
    const first = await run(tool, "mkdir -p sub && cd sub");
    expect(first.content).toMatch(/\[the working directory is now \/.*\/sub\]$/);
    expect((await run(tool, "pwd")).content).toMatch(/\/sub\n\[exit code 0\]$/);
  });

  it("keeps the new directory when the command ends with `exit N`", async () => {
    const tool = bashTool();
    const result = await run(tool, "mkdir sub && cd sub && exit 4");
    expect(result.content).toMatch(/\[exit code 4\]\n\[the working directory is now \/.*\/sub\]$/);
    expect((await run(tool, "basename $PWD")).content).toBe("sub\n[exit code 0]");
  });

  it.each([
    ["quotes and spaces", "it's a $dir `x`"],
    ["a newline, a tab and a backslash", "line\nbreak\ttab \\ end"],
    ["a double quote, a glob and a semicolon", 'say "hi"; rm *'],
  ])("keeps it when the tool's own files live under a path with %s", async (_, name) => {
    const tempDir = join(workspace(), name);
    mkdirSync(tempDir);
    const tool = bashTool({ tempDir });
    await run(tool, "mkdir sub && cd sub");
    expect((await run(tool, "basename $PWD")).content).toBe("sub\n[exit code 0]");
  });

  it("leaves nothing of its own in the command's environment or shell", async () => {
    const tool = bashTool();
    expect((await run(tool, "env | grep -c -e ^BASH_ENV= -e ^AGENTLOOP_CWD_FILE=")).content).toBe(
      "0\n[exit code 1]",
    );
    expect((await run(tool, "declare -p AGENTLOOP_TRAP")).isError).toBe(true);
  });

  it("does not mention the directory when it did not change", async () => {
    const tool = bashTool();
    expect((await run(tool, "cd . && echo same")).content).toBe("same\n[exit code 0]");
  });

  it("stays where it was when the command removes the trap that records the directory", async () => {
    const tool = bashTool();
    await run(tool, "mkdir -p sub/deeper && cd sub");
    const result = await run(tool, "trap - EXIT; cd deeper");
    expect(result.content).toBe("(no output)\n[exit code 0]");
    expect((await run(tool, "basename $PWD")).content).toBe("sub\n[exit code 0]");
  });

  it("tells each of two overlapping commands where it ended", async () => {
    const tool = bashTool();
    await run(tool, "mkdir early late");
    const [late, early] = await Promise.all([
      run(tool, "cd late && sleep 0.3"),
      run(tool, "cd early"),
    ]);
    expect(early.content).toMatch(/\[the working directory is now \/.*\/early\]$/);
    expect(late.content).toMatch(/\[the working directory is now \/.*\/late\]$/);
    expect((await run(tool, "basename $PWD")).content).toBe("late\n[exit code 0]");
  });

  it("keeps it when the command runs through a wrapper such as a sandbox", async () => {
    const wrap = (argv: string[]) => ["env", "WRAPPED=yes", "sh", "-c", 'exec "$@"', "sh", ...argv];
    const tool = bashTool({ wrap });
    await run(tool, "mkdir sub && cd sub");
    expect((await run(tool, 'echo "$WRAPPED $(basename "$PWD")"')).content).toBe(
      "yes sub\n[exit code 0]",
    );
  });

  it("goes back to the workspace root when the directory disappears", async () => {
    const root = workspace();
    mkdirSync(join(root, "gone"));
    const tool = bashTool({ cwd: root });
    await run(tool, "cd gone");
    const result = await run(tool, "rmdir ../gone; pwd");
    expect(result.content).toContain(`${root}/gone`);
    const after = await run(tool, "pwd");
    expect(after.content).toBe(
      `[${root}/gone no longer exists; the command ran in ${root}]\n${root}\n[exit code 0]`,
    );
  });
});

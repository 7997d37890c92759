// `agentloop --worktree NAME` at the REPL, in a real pseudo-terminal against the fake model: when
// the session changed something, the person is asked whether to keep the worktree. Keeping is
// the default; removing it takes a "no" and then a "yes", since its changes are nowhere else.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { git, withRepository } from "./support/git-repository.js";
import { openRepl } from "./support/terminal.js";

const KEEP = /Keep the worktree try-a with its changes\?[\s\S]*\[Y\]es, \[n\]o:/;
const SURE =
  /Remove the worktree try-a and its branch agentloop\/try-a, and lose its changes\?[\s\S]*\[y\]es, \[N\]o:/;

describe("the REPL's question about a changed session worktree", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  /** A REPL session in the worktree try-a that writes out.txt there, then ended with `exit`. */
  async function changedSession() {
    const sandbox = withRepository(freshSandbox());
    const path = join(sandbox.workspace, ".agentloop", "worktrees", "try-a");
    model.script([
      reply(toolUse("call_1", "bash", { command: "echo from-session > out.txt" })),
      reply(text("Wrote it.")),
    ]);
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: [...model.flags, "--permission-mode", "yolo", "--worktree", "try-a"],
    });
    await terminal.enter("write out.txt", /Wrote it\./);
    await terminal.press("exit\r", KEEP);
    return { sandbox, path, terminal };
  }

  it("keeps the worktree on Enter, and says where it is", async () => {
    const { sandbox, path, terminal } = await changedSession();
    await terminal.press("\r", /branch agentloop\/try-a, 1 file changed, not committed\./);
    expect(await terminal.exited).toBe(0);
    expect(terminal.output()).not.toMatch(SURE);
    expect(readFileSync(join(path, "out.txt"), "utf8")).toBe("from-session\n");
    expect(git(sandbox.workspace, "branch", "--list", "agentloop/try-a")).toContain("try-a");
  });

  it("keeps it on Ctrl-C", async () => {
    const { path, terminal } = await changedSession();
    await terminal.press("\x03", /worktree \S+try-a, branch agentloop\/try-a, 1 file changed/);
    expect(await terminal.exited).toBe(0);
    expect(existsSync(join(path, "out.txt"))).toBe(true);
  });

  it("keeps it when the removal is not confirmed", async () => {
    const { path, terminal } = await changedSession();
    await terminal.press("n\r", SURE);
    await terminal.press("\r", /worktree \S+try-a, branch agentloop\/try-a, 1 file changed/);
    expect(await terminal.exited).toBe(0);
    expect(existsSync(join(path, "out.txt"))).toBe(true);
  });

  it("removes the worktree and its branch after a no and a yes", async () => {
    const { sandbox, path, terminal } = await changedSession();
    await terminal.press("no\r", SURE);
    await terminal.press("y\r", /removed the worktree \S+try-a and the branch agentloop\/try-a\./);
    expect(await terminal.exited).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(git(sandbox.workspace, "branch", "--list", "agentloop/*")).toBe("");
    expect(git(sandbox.workspace, "worktree", "list").split("\n")).toHaveLength(1);
    expect(git(sandbox.workspace, "status", "--porcelain")).toBe("");
  });
});

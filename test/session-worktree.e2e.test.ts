// `agentloop --worktree [NAME]` (issue 43), through the built CLI against the fake model, in real
// git repositories in temporary directories: the session works in a new worktree, says where,
// keeps it when something changed and removes it when nothing did.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { takeWorktreeFlag } from "../src/worktrees/session-worktree.js";
import { type FakeModel, freshSandbox, runCli, startFakeModel } from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { git, withRepository } from "./support/git-repository.js";

describe("the --worktree flag's arguments", () => {
  it("takes a name that follows it, after =, or none, and leaves a prompt with spaces alone", () => {
    expect(takeWorktreeFlag(["--worktree", "try-a", "-p", "go"])).toEqual({
      argv: ["-p", "go"],
      worktree: { name: "try-a" },
    });
    expect(takeWorktreeFlag(["--worktree=b", "fix it"])).toEqual({
      argv: ["fix it"],
      worktree: { name: "b" },
    });
    expect(takeWorktreeFlag(["--worktree", "fix the bug"])).toEqual({
      argv: ["fix the bug"],
      worktree: {},
    });
    expect(takeWorktreeFlag(["--model", "m", "--", "--worktree"])).toEqual({
      argv: ["--model", "m", "--", "--worktree"],
      worktree: null,
    });
  });
});

describe("a session in a worktree", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  const repository = () => withRepository(freshSandbox());

  async function run(sandbox: ReturnType<typeof freshSandbox>, turns: FakeTurn[], args: string[]) {
    model.script(turns);
    const result = await runCli([...model.flags, ...args], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    model.script([]);
    return result;
  }

  it("runs in a named worktree, says where, and keeps it with the session's changes", async () => {
    const sandbox = repository();
    const head = git(sandbox.workspace, "rev-parse", "HEAD");
    const path = join(sandbox.workspace, ".agentloop", "worktrees", "try-a");
    const { code, stdout, stderr } = await run(
      sandbox,
      [
        reply(toolUse("call_1", "bash", { command: "echo from-session > out.txt; pwd" })),
        reply(text("Wrote it.")),
      ],
      ["--permission-mode", "auto", "--worktree", "try-a", "write out.txt"],
    );
    expect(code).toBe(0);
    expect(stdout).toContain("Wrote it.");
    expect(stderr).toContain(
      `agentloop: working in the worktree ${path} (branch agentloop/try-a, from HEAD ${head.slice(0, 7)}).`,
    );
    expect(stderr).toContain(
      `agentloop: worktree ${path}, branch agentloop/try-a, 1 file changed, not committed.`,
    );
    expect(readFileSync(join(path, "out.txt"), "utf8")).toBe("from-session\n");
    expect(existsSync(join(sandbox.workspace, "out.txt"))).toBe(false);
    expect(git(sandbox.workspace, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(git(sandbox.workspace, "status", "--porcelain")).toBe("");
  });

  it("removes a worktree whose session changed nothing, with its branch", async () => {
    const sandbox = repository();
    const { code, stderr } = await run(
      sandbox,
      [reply(text("Nothing to do."))],
      ["--worktree", "-p", "look around"],
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /agentloop: working in the worktree \S+\/\.agentloop\/worktrees\/session-[0-9a-f]{4} \(branch agentloop\/session-[0-9a-f]{4}/,
    );
    expect(stderr).toContain("agentloop: worktree removed: no changes.");
    expect(git(sandbox.workspace, "branch", "--list", "agentloop/*")).toBe("");
    expect(git(sandbox.workspace, "worktree", "list").split("\n")).toHaveLength(1);
  });

  it("refuses a name in use, and a directory outside git, in one sentence with exit 2", async () => {
    const sandbox = repository();
    git(sandbox.workspace, "branch", "agentloop/taken");
    const inUse = await run(sandbox, [], ["--worktree", "taken", "-p", "go"]);
    expect(inUse.code).toBe(2);
    expect(inUse.stderr.trim()).toBe(
      `agentloop: --worktree: the name "taken" is in use (${join(sandbox.workspace, ".agentloop", "worktrees", "taken")} or the branch agentloop/taken exists).`,
    );
    const outside = freshSandbox();
    const notGit = await run(outside, [], ["--worktree", "-p", "go"]);
    expect(notGit.code).toBe(2);
    expect(notGit.stderr.trim()).toBe(
      `agentloop: --worktree needs a git repository, and ${outside.workspace} is not in one.`,
    );
  });

  it("lists agentloop's worktrees, and refuses to remove a dirty one or one with commits on no other branch unless --force", async () => {
    const sandbox = repository();
    const cli = (...args: string[]) =>
      runCli(["worktree", ...args], { env: sandbox.env, cwd: sandbox.workspace });
    const none = await cli("list");
    expect(none.stdout.trim()).toBe(`No agentloop worktrees in ${sandbox.workspace}.`);
    const root = join(sandbox.workspace, ".agentloop", "worktrees");
    for (const name of ["dirty", "ahead", "clean"]) {
      git(
        sandbox.workspace,
        "worktree",
        "add",
        "--quiet",
        "-b",
        `agentloop/${name}`,
        join(root, name),
      );
    }
    writeFileSync(join(root, "dirty", "draft.txt"), "draft\n");
    writeFileSync(join(root, "ahead", "done.txt"), "done\n");
    git(join(root, "ahead"), "add", "done.txt");
    git(join(root, "ahead"), "commit", "--quiet", "-m", "done");

    const listed = await cli("list");
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split("\n").sort()).toEqual([
      "ahead\tagentloop/ahead\t1 commit on agentloop/ahead is on no other branch",
      "clean\tagentloop/clean\tnothing that is not elsewhere",
      "dirty\tagentloop/dirty\tit has uncommitted changes (1 file)",
    ]);
    const dirty = await cli("remove", "dirty");
    expect(dirty.code).toBe(1);
    expect(dirty.stderr.trim()).toBe(
      "agentloop: dirty is not removed: it has uncommitted changes (1 file); --force removes it anyway.",
    );
    expect(existsSync(join(root, "dirty", "draft.txt"))).toBe(true);
    const ahead = await cli("remove", "ahead");
    expect(ahead.code).toBe(1);
    expect(ahead.stderr).toContain("1 commit on agentloop/ahead is on no other branch");
    expect(git(sandbox.workspace, "branch", "--list", "agentloop/ahead")).not.toBe("");

    const clean = await cli("remove", "clean");
    expect(clean.code).toBe(0);
    expect(existsSync(join(root, "clean"))).toBe(false);
    const forced = await cli("remove", "dirty", "--force");
    expect(forced.code).toBe(0);
    expect(existsSync(join(root, "dirty"))).toBe(false);
    expect(
      git(sandbox.workspace, "for-each-ref", "--format=%(refname:short)", "refs/heads/agentloop/"),
    ).toBe("agentloop/ahead");
    const unknown = await cli("remove", "nothing");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe(
      `agentloop: There is no agentloop worktree "nothing" in ${sandbox.workspace}.`,
    );
  });
});

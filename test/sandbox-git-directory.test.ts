// Inside the sandbox the workspace's repository keeps its git state read-only, even where the
// workspace is writable: a command there can read history but not plant what git runs later
// outside the sandbox (core.fsmonitor, a hook, core.worktree). Real bubblewrap, real git.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SandboxOptions } from "../src/sandbox/sandbox.js";
import { createSandbox } from "../src/sandbox/select.js";
import { runWrapped } from "./support/run-wrapped.js";

let dir: string;
let repo: string;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@localhost", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

/** Git inside the sandbox needs an identity; the commands' HOME has no git config. */
const identity =
  "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@localhost GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@localhost;";

function sandboxOf(workspace: string, overrides: Partial<SandboxOptions> = {}) {
  return createSandbox({
    workspace,
    writable: true,
    allowNetwork: false,
    tmpDir: mkdtempSync(join(dir, "scratch-")),
    home: join(dir, "home"),
    ...overrides,
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentloop-sandbox-git-"));
  repo = join(dir, "repo");
  mkdirSync(repo);
  mkdirSync(join(dir, "home"));
  git(repo, "init", "--quiet", "--initial-branch", "main");
  writeFileSync(join(repo, "a.txt"), "one\n");
  git(repo, "add", ".");
  git(repo, "commit", "--quiet", "-m", "start");
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(process.platform === "linux")("the repository's git state in the sandbox", () => {
  it("is read-only where the workspace is writable: no config, no hook, no commit", async () => {
    const config = readFileSync(join(repo, ".git", "config"), "utf8");
    const script = [
      "git config core.fsmonitor 'touch planted' 2>&1",
      "echo '#!/bin/sh' > .git/hooks/post-checkout 2>&1",
      "echo two >> a.txt && git add a.txt 2>&1",
      "echo still-writable > b.txt && echo wrote b.txt",
    ].join("; ");
    const run = await runWrapped(sandboxOf(repo), script, repo);
    expect(run.output).toContain("could not lock config file");
    expect(run.output).toContain(".git/hooks/post-checkout: Read-only file system");
    expect(run.output).toContain("index.lock': Read-only file system");
    expect(run.output).toContain("wrote b.txt");
    expect(readFileSync(join(repo, ".git", "config"), "utf8")).toBe(config);
    expect(existsSync(join(repo, ".git", "hooks", "post-checkout"))).toBe(false);
    expect(git(repo, "diff", "--cached", "--name-only")).toBe("");
  });

  it("still shows history, diffs and blame", async () => {
    writeFileSync(join(repo, "a.txt"), "one\ntwo\n");
    const run = await runWrapped(
      sandboxOf(repo),
      "git log --format=%s; git diff --stat; git blame a.txt | wc -l",
      repo,
    );
    expect(run.code).toBe(0);
    expect(run.output).toMatch(/^start\n a\.txt \| 1 \+\n 1 file changed, 1 insertion\(\+\)\n2\n$/);
  });

  it("covers a .git made after the sandbox was, from the next command on", async () => {
    const workspace = join(dir, "fresh");
    mkdirSync(workspace);
    const sandbox = sandboxOf(workspace);
    const made = await runWrapped(sandbox, "git init --quiet && git config a.b 1", workspace);
    expect(made.code).toBe(0);
    const next = await runWrapped(sandbox, "git config core.fsmonitor x", workspace);
    expect(next.output).toContain("could not lock config file");
  });

  it("in a linked worktree, keeps its pointer, its own git directory and the shared one read-only", async () => {
    const tree = join(dir, "tree");
    git(repo, "worktree", "add", "--quiet", "-b", "side", tree);
    const pointer = readFileSync(join(tree, ".git"), "utf8");
    const script = [
      identity,
      "git log --format=%s",
      "git commit --allow-empty -q -m mine 2>&1",
      "echo 'gitdir: /elsewhere' > .git 2>&1",
      `git config core.worktree ${dir}/home 2>&1`,
      "echo x > new.txt && echo wrote",
    ].join("\n");
    const run = await runWrapped(sandboxOf(tree), script, tree);
    // The shared git directory is outside /tmp's replacement yet visible: history reads.
    expect(run.output).toMatch(/^start\n/);
    expect(run.output).toContain("Read-only file system");
    expect(run.output).toContain("could not lock config file");
    expect(run.output).toContain("wrote");
    expect(readFileSync(join(tree, ".git"), "utf8")).toBe(pointer);
    expect(git(repo, "rev-list", "--count", "side")).toBe("1");
    expect(readFileSync(join(repo, ".git", "config"), "utf8")).not.toMatch(/^\s*worktree\s*=/m);
  });

  it("opens to commits with writableGitDir, in the main tree and in a linked worktree", async () => {
    const tree = join(dir, "tree");
    git(repo, "worktree", "add", "--quiet", "-b", "side", tree);
    const commit = `${identity} echo more >> a.txt && git commit -q -am mine && echo committed`;
    for (const workspace of [repo, tree]) {
      const run = await runWrapped(
        sandboxOf(workspace, { writableGitDir: true }),
        commit,
        workspace,
      );
      expect(run.output).toBe("committed\n");
    }
    expect(git(repo, "rev-list", "--count", "main")).toBe("2");
    expect(git(repo, "rev-list", "--count", "side")).toBe("2");
  });

  it("stays read-only in read-only mode, whatever writableGitDir says", async () => {
    const run = await runWrapped(
      sandboxOf(repo, { writable: false, writableGitDir: true }),
      "git config a.b 1",
      repo,
    );
    expect(run.output).toContain("could not lock config file");
  });
});

// `agentloop batch` on worktrees, end to end: the built CLI runs tasks on a local repository
// against the fake model, each in a detached worktree of it, and the person's repository (its
// working tree, index, branch, refs and list of worktrees) is as it was afterwards.

import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { TaskResult } from "../src/batch/task-result.js";
import { type BatchModel, batchPrompt, startBatchModel } from "./support/batch-model.js";
import { CLI, freshSandbox, runCli } from "./support/cli-harness.js";
import { processesIn } from "./support/processes.js";

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

/** A repository on its branch `main`, with a commit, an uncommitted edit and a staged file. */
function dirtyRepository(model: BatchModel, tasks: object[]) {
  const sandbox = freshSandbox();
  const root = join(sandbox.home, "..");
  const repo = join(root, "repo");
  mkdirSync(repo);
  git(repo, "init", "--quiet", "--initial-branch", "main");
  git(repo, "config", "user.email", "t@example.invalid");
  git(repo, "config", "user.name", "t");
  writeFileSync(join(repo, "README.md"), "committed\n");
  git(repo, "add", ".");
  git(repo, "commit", "--quiet", "-m", "first");
  writeFileSync(join(repo, "README.md"), "uncommitted edit\n");
  writeFileSync(join(repo, "staged.txt"), "staged only\n");
  git(repo, "add", "staged.txt");
  writeFileSync(join(repo, "untracked.txt"), "never added\n");
  const tasksFile = join(root, "tasks.jsonl");
  writeFileSync(tasksFile, tasks.map((task) => JSON.stringify(task)).join("\n"));
  const env = {
    ...sandbox.env,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: "sk-test",
    ANTHROPIC_MAX_RETRIES: "0",
  };
  // yolo: commands outside the sandbox, where the worktree is the default.
  const args = (name: string) => {
    const out = join(root, name);
    const work = join(root, "work");
    return [
      "batch",
      "run",
      tasksFile,
      "--out",
      out,
      "--work-dir",
      work,
      "--permission-mode",
      "yolo",
    ];
  };
  return { root, repo, env, args, work: join(root, "work") };
}

/** Everything of the repository a batch must leave as it found it. */
function stateOf(repo: string) {
  return {
    status: git(repo, "status", "--porcelain", "--untracked-files=all"),
    staged: git(repo, "diff", "--cached"),
    branch: git(repo, "branch", "--show-current"),
    refs: git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
    worktrees: git(repo, "worktree", "list", "--porcelain"),
  };
}

const task = (id: string, command: string) => ({
  id,
  prompt: batchPrompt(id, command),
  repo: "./repo",
});

function outcome(out: string, id: string): { result: TaskResult; patch: string } {
  const directory = join(out, "tasks", id);
  return {
    result: JSON.parse(readFileSync(join(directory, "result.json"), "utf8")),
    patch: readFileSync(join(directory, "patch.diff"), "utf8"),
  };
}

describe("agentloop batch on a local repository's worktrees", () => {
  let model: BatchModel;
  beforeAll(async () => {
    model = await startBatchModel();
  });
  afterAll(() => model.close());

  it("starts each task at HEAD without the person's uncommitted changes, and leaves their repository as it was", async () => {
    const place = dirtyRepository(model, [
      task("sees-head", "cat README.md > seen.txt; ls > listing.txt"),
      task("writes", "echo new > new.txt; echo changed >> README.md"),
      task("where", "git rev-parse --git-common-dir > common.txt"),
    ]);
    const before = stateOf(place.repo);
    const run = await runCli([...place.args("out"), "--workers", "2"], {
      env: place.env,
      cwd: place.root,
    });
    expect(run.code, run.stderr).toBe(0);
    const out = join(place.root, "out");
    const seen = outcome(out, "sees-head").patch;
    expect(seen).toMatch(/\+\+\+ b\/seen\.txt\n@@ .* @@\n\+committed\n/);
    expect(seen).not.toMatch(/staged\.txt|untracked\.txt|uncommitted edit/);
    const written = outcome(out, "writes").patch;
    expect(written).toContain("+++ b/new.txt");
    expect(written).toMatch(
      /--- a\/README\.md\n\+\+\+ b\/README\.md\n@@ .* @@\n committed\n\+changed/,
    );
    // Made as a worktree of the person's repository, and gone again.
    expect(outcome(out, "where").patch).toContain(`+${join(place.repo, ".git")}\n`);
    expect(stateOf(place.repo)).toEqual(before);
    expect(readFileSync(join(place.repo, "README.md"), "utf8")).toBe("uncommitted edit\n");
    expect(readdirSync(place.work)).toEqual([]);

    // The same tasks in clones of their own give the same patches.
    const cloned = await runCli([...place.args("cloned"), "--isolation", "clone"], {
      env: place.env,
      cwd: place.root,
    });
    expect(cloned.code, cloned.stderr).toBe(0);
    expect(outcome(join(place.root, "cloned"), "where").patch).toContain("+.git\n");
    for (const id of ["sees-head", "writes"]) {
      expect(outcome(join(place.root, "cloned"), id).patch).toBe(outcome(out, id).patch);
    }
    expect(stateOf(place.repo)).toEqual(before);
  });

  it("refuses an agent's branch, tag and stash in the shared repository, and keeps its commit in its patch", async () => {
    const command = [
      "echo work > work.txt",
      "git checkout -q -b agent-branch 2> refused.txt",
      "git tag agent-tag 2>> refused.txt",
      "echo stashed >> README.md; git stash -q 2>> refused.txt",
      "git add work.txt && git commit -q -m mine && echo committed > commit.txt",
    ].join("; ");
    const place = dirtyRepository(model, [task("git-user", command)]);
    const before = stateOf(place.repo);
    const run = await runCli(place.args("out"), {
      env: place.env,
      cwd: place.root,
    });
    expect(run.code, run.stderr).toBe(0);
    const { patch } = outcome(join(place.root, "out"), "git-user");
    expect(patch).toContain("refs/heads/agent-branch is not changed");
    expect(patch).toContain("refs/tags/agent-tag is not changed");
    expect(patch).toContain("refs/stash is not changed");
    // Committed on the detached HEAD: still the difference from where the task started.
    expect(patch).toMatch(/\+\+\+ b\/work\.txt\n@@ .* @@\n\+work\n/);
    expect(patch).toContain("+committed");
    expect(patch).toMatch(/ committed\n\+stashed\n/);
    expect(stateOf(place.repo)).toEqual(before);
  });

  it("killed with SIGKILL mid-task, leaves no worktree entry once run again", async () => {
    const ids = ["k1", "k2"];
    const place = dirtyRepository(
      model,
      ids.map((id) => task(id, `sleep 1; echo ${id} > ${id}.txt`)),
    );
    const before = stateOf(place.repo);
    const first = spawn(process.execPath, [CLI, ...place.args("out"), "--workers", "2"], {
      cwd: place.root,
      env: place.env,
      stdio: "ignore",
    });
    const out = join(place.root, "out");
    const talking = (id: string) =>
      existsSync(join(out, "tasks", id, "running.json")) && model.requestsFor(id) > 0;
    while (!ids.every(talking)) await sleep(50);
    first.kill("SIGKILL");
    await new Promise((resolve) => first.on("exit", resolve));
    for (let waited = 0; processesIn(place.work).length > 0 && waited < 100; waited += 1) {
      await sleep(100);
    }
    expect(git(place.repo, "worktree", "list")).toMatch(/work\/k1-/);

    const again = await runCli([...place.args("out"), "--workers", "2"], {
      env: place.env,
      cwd: place.root,
    });
    expect(again.code, again.stderr).toBe(0);
    for (const id of ids) expect(outcome(out, id).result.attempt).toBe(2);
    expect(stateOf(place.repo)).toEqual(before);
    expect(git(place.repo, "worktree", "list").split("\n")).toHaveLength(1);
  });

  // A work dir on a tmpfs and the repository on disk, as with a tmpfs /tmp and a home on disk.
  const otherFileSystem = "/dev/shm";
  const apart =
    existsSync(otherFileSystem) && statSync(otherFileSystem).dev !== statSync(tmpdir()).dev;
  it.runIf(apart)("checks out both ways when the work dir is on another file system", async () => {
    const place = dirtyRepository(model, [task("apart", "echo far > far.txt")]);
    const work = mkdtempSync(join(otherFileSystem, "agentloop-batch-"));
    onTestFinished(() => rmSync(work, { recursive: true, force: true }));
    for (const isolation of ["worktree", "clone"]) {
      const args = [...place.args(isolation), "--work-dir", work, "--isolation", isolation];
      const run = await runCli(args, { env: place.env, cwd: place.root });
      expect(run.code, run.stderr).toBe(0);
      expect(outcome(join(place.root, isolation), "apart").patch).toContain("+++ b/far.txt");
    }
    expect(readdirSync(work)).toEqual([]);
    expect(git(place.repo, "worktree", "list").split("\n")).toHaveLength(1);
  });
});

// agentloop's own git runs nothing a repository's config names. Each case plants one setting in a
// real repository, shows that plain git really runs it (so the plant works and the test can fail),
// then that the same git command through core/git.ts does not.

import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitAsync, gitSync } from "../src/core/git.js";

let dir: string;
let repo: string;
let marker: string;

const plainGit = (args: string[], input?: string) =>
  execFileSync("git", args, { cwd: repo, input, stdio: ["pipe", "pipe", "pipe"] }).toString();
const hardenedGit = (args: string[], input?: string) =>
  gitSync(args, { cwd: repo, workTree: repo, input }).toString();
const commit = (...args: string[]) =>
  plainGit(["-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "--quiet", ...args]);
/** Runs `args`, ignoring a failure: what matters is whether the planted command ran. */
const attempt = (run: () => unknown) => {
  try {
    run();
  } catch {
    // A neutralised command may make git fail; it must not make it run the command.
  }
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "git-hardened-"));
  repo = join(dir, "repo");
  marker = join(dir, "ran");
  mkdirSync(repo);
  const setup = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@localhost", ...args], {
      cwd: repo,
    });
  setup("init", "--quiet", "--initial-branch", "main");
  writeFileSync(join(repo, "a.txt"), "one\n");
  writeFileSync(join(repo, ".gitattributes"), "a.txt filter=planted diff=planted\n");
  setup("add", ".");
  setup("commit", "--quiet", "-m", "start");
  writeFileSync(join(repo, "a.txt"), "two\n");
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const plant = (key: string, value: string) => plainGit(["config", key, value]);
const touch = () => `touch ${marker}; cat`;

/** Each setting, how to plant it, and a git command that runs it when planted. */
const cases: Array<{ name: string; plant: () => void; trigger: () => string[]; input?: string }> = [
  {
    name: "core.fsmonitor",
    plant: () => plant("core.fsmonitor", `touch ${marker}; false`),
    trigger: () => ["status", "--porcelain"],
  },
  {
    name: "a clean filter",
    plant: () => plant("filter.planted.clean", touch()),
    trigger: () => ["add", "a.txt"],
  },
  {
    name: "a required process filter",
    plant: () => {
      plant("filter.planted.process", `touch ${marker}`);
      plant("filter.planted.required", "true");
    },
    trigger: () => ["add", "a.txt"],
  },
  {
    name: "diff.external",
    plant: () => plant("diff.external", `touch ${marker}`),
    trigger: () => ["diff"],
  },
  {
    name: "a textconv driver",
    plant: () => plant("diff.planted.textconv", touch()),
    trigger: () => ["diff"],
  },
  {
    name: "core.sshCommand",
    plant: () => plant("core.sshCommand", `touch ${marker}`),
    trigger: () => ["ls-remote", "ssh://127.0.0.1/nothing"],
  },
  {
    name: "a setting brought by include.path",
    plant: () => {
      writeFileSync(join(dir, "included"), `[core]\n\tfsmonitor = touch ${marker}; false\n`);
      plant("include.path", join(dir, "included"));
    },
    trigger: () => ["status", "--porcelain"],
  },
  {
    name: "a credential helper",
    plant: () => plant("credential.helper", `!touch ${marker}; true`),
    trigger: () => ["credential", "fill"],
    input: "protocol=https\nhost=example.com\n\n",
  },
  {
    name: "a merge driver",
    plant: () => {
      writeFileSync(join(repo, ".gitattributes"), "a.txt merge=planted\n");
      commit("-am", "two");
      plainGit(["checkout", "--quiet", "-b", "other", "HEAD~1"]);
      writeFileSync(join(repo, "a.txt"), "three\n");
      commit("-am", "three");
      plainGit(["checkout", "--quiet", "main"]);
      plant("merge.planted.driver", `touch ${marker}; false`);
    },
    trigger: () => [
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@localhost",
      "merge",
      "--no-edit",
      "other",
    ],
  },
  {
    name: "a setting in config.worktree (extensions.worktreeConfig)",
    plant: () => {
      plant("extensions.worktreeConfig", "true");
      plainGit(["config", "--worktree", "diff.external", `touch ${marker}`]);
    },
    trigger: () => ["diff"],
  },
  {
    name: "a post-checkout hook",
    plant: () => {
      const hook = join(repo, ".git", "hooks", "post-checkout");
      writeFileSync(hook, `#!/bin/sh\ntouch ${marker}\n`);
      chmodSync(hook, 0o755);
    },
    trigger: () => ["worktree", "add", "--quiet", "--detach", join(dir, "tree")],
  },
  {
    name: "core.hooksPath",
    plant: () => {
      mkdirSync(join(dir, "hooks"));
      writeFileSync(join(dir, "hooks", "post-checkout"), `#!/bin/sh\ntouch ${marker}\n`);
      chmodSync(join(dir, "hooks", "post-checkout"), 0o755);
      plant("core.hooksPath", join(dir, "hooks"));
    },
    trigger: () => ["worktree", "add", "--quiet", "--detach", join(dir, "tree")],
  },
];

describe("agentloop's own git runs nothing a repository's config names", () => {
  for (const each of cases) {
    it(`${each.name}: plain git runs it, the hardened git does not`, () => {
      each.plant();
      attempt(() => plainGit(each.trigger(), each.input));
      expect(existsSync(marker), "the plant works with plain git").toBe(true);
      rmSync(marker);
      rmSync(join(dir, "tree"), { recursive: true, force: true });
      attempt(() => plainGit(["worktree", "prune"]));
      attempt(() => plainGit(["merge", "--abort"]));
      attempt(() => hardenedGit(each.trigger(), each.input));
      expect(existsSync(marker)).toBe(false);
    });
  }

  it("a repository's pager and editor are replaced, not only left unused", () => {
    plant("core.pager", `touch ${marker}`);
    plant("core.editor", `touch ${marker}`);
    expect(plainGit(["var", "GIT_PAGER"]).trim()).toBe(`touch ${marker}`);
    expect(hardenedGit(["var", "GIT_PAGER"]).trim()).toBe("cat");
    expect(hardenedGit(["var", "GIT_EDITOR"]).trim()).toBe("true");
  });

  it("core.worktree in config.worktree cannot move the work tree either", () => {
    const elsewhere = join(dir, "elsewhere");
    mkdirSync(elsewhere);
    plant("extensions.worktreeConfig", "true");
    plainGit(["config", "--worktree", "core.worktree", elsewhere]);
    expect(plainGit(["rev-parse", "--show-toplevel"]).trim()).toBe(elsewhere);
    expect(hardenedGit(["rev-parse", "--show-toplevel"]).trim()).toBe(repo);
  });

  it("core.worktree cannot move the work tree elsewhere", () => {
    const elsewhere = join(dir, "elsewhere");
    mkdirSync(elsewhere);
    plant("core.worktree", elsewhere);
    expect(plainGit(["rev-parse", "--show-toplevel"]).trim()).toBe(elsewhere);
    expect(hardenedGit(["rev-parse", "--show-toplevel"]).trim()).toBe(repo);
  });

  it("no GIT_* variable of the caller's reaches git", async () => {
    const other = join(dir, "other");
    mkdirSync(other);
    execFileSync("git", ["init", "--quiet", other]);
    const baseEnv = { ...process.env, GIT_DIR: join(other, ".git"), GIT_WORK_TREE: other };
    const top = await gitAsync(["rev-parse", "--show-toplevel"], {
      cwd: repo,
      workTree: repo,
      baseEnv,
    });
    expect(top.trim()).toBe(repo);
  });

  it("the person's own global drivers still run: only the repository's are blanked", () => {
    const home = join(dir, "home");
    mkdirSync(home);
    writeFileSync(join(home, ".gitconfig"), `[filter "planted"]\n\tclean = touch ${marker}; cat\n`);
    const baseEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    gitSync(["add", "a.txt"], { cwd: repo, workTree: repo, baseEnv });
    expect(existsSync(marker)).toBe(true);
  });
});

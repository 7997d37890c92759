// A git worktree of agentloop's own: a new branch `agentloop/<name>` from HEAD, checked out in
// `<root>/.agentloop/worktrees/<name>` (excluded through .git/info/exclude, so it never shows in
// `git status`). Only `git worktree add`, that branch and that directory are touched: never the
// person's current branch, index or working tree. At the end a worktree with no changes goes
// away with its branch; one with changes is kept.

import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import { ConfigError } from "../core/errors.js";
import { excludeFromGit, workTreeRootOf } from "../core/git-directory.js";
import { plural } from "../core/wording.js";
import { git, gitOrNull, identityFor } from "./git.js";

/** Where worktrees go, from the repository's root. */
export const WORKTREES_DIRECTORY = join(".agentloop", "worktrees");
/** A name a person may give: it becomes a directory and a branch. */
const NAME = /^[A-Za-z0-9][\w.-]*$/;

export interface Worktree {
  path: string;
  branch: string;
  /** The worktree's copy of the directory the work was asked for in. */
  workspace: string;
  /** The commit it started from, short. */
  base: string;
  /** Whether the tree it was made from had uncommitted changes, which it does not have. */
  leftBehind: boolean;
  /**
   * Commits what changed (with `commitMessage`; else leaves it as it is), then removes a
   * worktree with no changes and its branch; says what became of it.
   */
  finish(commitMessage?: string): Promise<Settled>;
  /** Removes the worktree and its branch, changes and all: only once the person said so. */
  discard(): Promise<void>;
}

/** What became of a worktree at its end: kept (with changes) or removed, in words. */
export interface Settled {
  kept: boolean;
  said: string;
}

/** A refusal the person can act on, in one sentence (for the CLI, a usage error: exit 2). */
export class WorktreeRefusal extends ConfigError {}

/**
 * Makes a worktree from HEAD of the repository holding `cwd`, named `name` or
 * `<prefix>-<4 hex>`; `asker` (`isolation "worktree"`, `--worktree`) begins each refusal.
 */
export function openWorktree(
  cwd: string,
  naming: { name?: string; prefix: string },
  asker: string,
): Promise<Worktree> {
  return serially(async () => {
    const root = workTreeRootOf(cwd);
    if (root === null) {
      throw new WorktreeRefusal(`${asker} needs a git repository, and ${cwd} is not in one.`);
    }
    const base = await gitOrNull(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
    if (base === null) {
      throw new WorktreeRefusal(`${asker} needs a commit to start from, and ${root} has none yet.`);
    }
    // Read before the worktree exists; --no-optional-locks leaves the person's index unwritten.
    const dirty = (await git(root, ["--no-optional-locks", "status", "--porcelain"])) !== "";
    const parent = join(root, WORKTREES_DIRECTORY);
    const name = naming.name ?? (await freshName(root, parent, naming.prefix));
    if (!NAME.test(name)) {
      throw new WorktreeRefusal(
        `${asker}: the name "${name}" may have only letters, digits, - _ . and must start with a letter or digit.`,
      );
    }
    const path = join(parent, name);
    const branch = `agentloop/${name}`;
    if (await taken(root, path, branch)) {
      throw new WorktreeRefusal(
        `${asker}: the name "${name}" is in use (${path} or the branch ${branch} exists).`,
      );
    }
    mkdirSync(parent, { recursive: true });
    await excludeFromGit(parent);
    await git(root, ["worktree", "add", "--quiet", "-b", branch, path, base]);
    return {
      path,
      branch,
      workspace: join(path, relative(root, cwd)),
      base: base.slice(0, 7),
      leftBehind: dirty,
      finish: (message) => serially(() => finish(root, path, branch, base, message)),
      discard: () => serially(() => removeWorktree(root, path, branch)),
    };
  });
}

// Children start and end at the same time; git's locks on shared refs would fail one of two
// commands that meet, so this module's git commands run one after another.
let queue: Promise<unknown> = Promise.resolve();
function serially<T>(work: () => Promise<T>): Promise<T> {
  const next = queue.then(work, work);
  queue = next.catch(() => undefined);
  return next;
}

async function taken(root: string, path: string, branch: string): Promise<boolean> {
  if (existsSync(path)) return true;
  const ref = await gitOrNull(root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]);
  return ref !== null;
}

/** `<prefix>-<4 hex>`, in use neither as a directory nor as a branch. */
async function freshName(root: string, parent: string, prefix: string): Promise<string> {
  for (;;) {
    const name = `${prefix}-${randomBytes(2).toString("hex")}`;
    if (!(await taken(root, join(parent, name), `agentloop/${name}`))) return name;
  }
}

async function finish(
  root: string,
  path: string,
  branch: string,
  base: string,
  commitMessage: string | undefined,
): Promise<Settled> {
  if (commitMessage !== undefined) {
    await git(path, ["add", "--all"]);
    if ((await git(path, ["diff", "--cached", "--name-only"])) !== "") {
      // --no-verify: the person's hooks judge their own commits; this one only keeps the work.
      const identity = await identityFor(path);
      await git(path, [...identity, "commit", "--quiet", "--no-verify", "-m", commitMessage]);
    }
  }
  const committed = (await git(path, ["diff", "--name-only", base, "HEAD"])).split("\n");
  const uncommitted = (await git(path, ["status", "--porcelain"])).split("\n");
  const head = await git(path, ["rev-parse", "HEAD"]);
  if (head === base && uncommitted.every((line) => line === "")) {
    await removeWorktree(root, path, branch);
    return { kept: false, said: "worktree removed: no changes" };
  }
  const files = new Set([...committed, ...uncommitted.map((line) => line.slice(3))]);
  files.delete("");
  const changed =
    files.size === 0 ? "commits but no file changed" : `${plural(files.size, "file")} changed`;
  const pending = uncommitted.some((line) => line !== "") ? ", not committed" : "";
  return { kept: true, said: `worktree ${path}, branch ${branch}, ${changed}${pending}` };
}

/** The worktree at `path` and its branch, gone whatever they hold. */
export async function removeWorktree(root: string, path: string, branch: string): Promise<void> {
  await git(root, ["worktree", "remove", "--force", path]);
  await gitOrNull(root, ["branch", "-D", "--quiet", branch]);
}

// A subagent's own worktree (`isolation: "worktree"`): a new branch from the parent's HEAD,
// checked out under `.agentloop/worktrees/` (excluded from git through .git/info/exclude), so
// that children may write at the same time without meeting each other or the person's files.
// Only `git worktree add` and the child's own branch are touched: never the person's current
// branch, index or working tree. When the child ends, a worktree with no changes goes away with
// its branch; one with changes has them committed on its branch and is kept.

import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import { excludeFromGit } from "../core/git-directory.js";
import { plural } from "../core/wording.js";
import { git, gitOrNull, identityFor } from "./git.js";

/** Where worktrees go, from the repository's root. */
export const WORKTREES_DIRECTORY = join(".agentloop", "worktrees");

export interface ChildWorktree {
  /** The worktree's root. */
  path: string;
  branch: string;
  /** Where the child works: the worktree's copy of the directory the parent works in. */
  workspace: string;
  /** What the child is told of where it works, for its system prompt. */
  briefing: string;
  /** A sentence for the result when the child does not see what the parent sees; else null. */
  warning: string | null;
  /** Commits or removes the worktree; says what became of it, for the result's status line. */
  finish(summary: string): Promise<string>;
}

/** A refusal the person can act on, in one sentence. */
export class WorktreeRefusal extends Error {}

/** Makes a worktree for a child named `agentName`, from HEAD of the repository holding `cwd`. */
export function openChildWorktree(cwd: string, agentName: string): Promise<ChildWorktree> {
  return serially(() => openWorktree(cwd, agentName));
}

// Children start and end at the same time; git's locks on shared refs would fail one of two
// commands that meet, so this module's git commands run one after another.
let queue: Promise<unknown> = Promise.resolve();
function serially<T>(work: () => Promise<T>): Promise<T> {
  const next = queue.then(work, work);
  queue = next.catch(() => undefined);
  return next;
}

async function openWorktree(cwd: string, agentName: string): Promise<ChildWorktree> {
  const root = await gitOrNull(cwd, ["rev-parse", "--show-toplevel"]);
  if (root === null) {
    throw new WorktreeRefusal(
      `isolation "worktree" needs a git repository, and ${cwd} is not in one.`,
    );
  }
  const base = await gitOrNull(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  if (base === null) {
    throw new WorktreeRefusal(
      `isolation "worktree" needs a commit to start from, and ${root} has none yet.`,
    );
  }
  // Read before the worktree exists; --no-optional-locks leaves the person's index unwritten.
  const dirty = (await git(root, ["--no-optional-locks", "status", "--porcelain"])) !== "";
  const parent = join(root, WORKTREES_DIRECTORY);
  mkdirSync(parent, { recursive: true });
  await excludeFromGit(parent);
  const name = await freshName(root, parent, agentName);
  const path = join(parent, name);
  const branch = `agentloop/${name}`;
  await git(root, ["worktree", "add", "--quiet", "-b", branch, path, base]);
  const where = join(path, relative(root, cwd));
  return {
    path,
    branch,
    workspace: where,
    briefing: `You work in your own git worktree at ${where} (branch ${branch}, made from the parent's HEAD): read and change files there, not in ${cwd}. Your changes are committed for you when you finish.`,
    warning: dirty
      ? `The parent's tree has uncommitted changes: the agent started from HEAD ${base.slice(0, 7)}, without them.`
      : null,
    finish: (summary) => serially(() => finishChildWorktree(root, path, branch, base, summary)),
  };
}

/** `<agent>-<4 hex>`, in use neither as a directory nor as a branch. */
async function freshName(root: string, parent: string, agentName: string): Promise<string> {
  for (;;) {
    const name = `${agentName}-${randomBytes(2).toString("hex")}`;
    const taken =
      existsSync(join(parent, name)) ||
      (await gitOrNull(root, [
        "rev-parse",
        "--verify",
        "--quiet",
        `refs/heads/agentloop/${name}`,
      ])) !== null;
    if (!taken) return name;
  }
}

async function finishChildWorktree(
  root: string,
  path: string,
  branch: string,
  base: string,
  summary: string,
): Promise<string> {
  await git(path, ["add", "--all"]);
  const staged = (await git(path, ["diff", "--cached", "--name-only"])) !== "";
  if (staged) {
    // --no-verify: the person's hooks judge their own commits; this one only keeps the work.
    const identity = await identityFor(path);
    await git(path, [...identity, "commit", "--quiet", "--no-verify", "-m", summary]);
  }
  const files = (await git(path, ["diff", "--name-only", base, "HEAD"]))
    .split("\n")
    .filter(Boolean);
  const head = await git(path, ["rev-parse", "HEAD"]);
  if (head === base) {
    await git(root, ["worktree", "remove", "--force", path]);
    await git(root, ["branch", "-D", "--quiet", branch]);
    return "worktree removed: no changes";
  }
  const changed =
    files.length === 0 ? "commits but no file changed" : `${plural(files.length, "file")} changed`;
  return `worktree ${path}, branch ${branch}, ${changed}`;
}

// An attempt's workspace as a detached git worktree of the task's local repository: no copy of
// its objects, no branch made, and the person's working tree, index and current branch never
// touched. A worktree shares the repository's refs, config and hooks, so the attempt's git
// runs with hooks of its own that refuse to change any shared ref (a branch, a tag, a stash):
// an agent's ordinary `git checkout -b` or `git stash` would otherwise land in the person's
// repository. That guard is against accidents; docs/batch.md says what it does not stop.

import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { gitSync } from "../core/git.js";
import { workTreeRootOf } from "../core/git-directory.js";
import { git } from "./workspace-git.js";

/** Refs every worktree has of its own; anything else under refs/ is the person's. */
const REF_GUARD = `#!/bin/sh
# agentloop batch: this workspace is a worktree of your repository; its shared refs stay yours.
[ "$1" = prepared ] || exit 0
while read -r old new ref; do
  case "$ref" in
    refs/bisect/*|refs/worktree/*|refs/rewritten/*) ;;
    refs/*)
      echo "agentloop batch: $ref is not changed: this workspace is a worktree of the user's repository, whose branches, tags and stashes are theirs. Commit on the detached HEAD instead." >&2
      exit 1 ;;
  esac
done
`;

export interface AttachedWorktree {
  /** The worktree's own index (its `.git` is a file, so not `.git/index`). */
  indexFile: string;
  /** Given to every command of the attempt: the hooks that guard the shared refs. */
  gitEnv: Record<string, string>;
}

/** Checks out `baseCommit` (default: HEAD) of `repository` at `dir`, detached. */
export async function addWorktree(options: {
  repository: string;
  dir: string;
  hooks: string;
  baseCommit: string | undefined;
}): Promise<AttachedWorktree> {
  const { repository, dir } = options;
  const base = options.baseCommit ?? "HEAD";
  await git(repository, ["worktree", "add", "--quiet", "--detach", dir, `${base}^{commit}`]);
  const index = (await git(dir, ["rev-parse", "--git-path", "index"])).trim();
  await mkdir(options.hooks, { recursive: true });
  const guard = join(options.hooks, "reference-transaction");
  await writeFile(guard, REF_GUARD);
  await chmod(guard, 0o755);
  return {
    indexFile: isAbsolute(index) ? index : join(dir, index),
    gitEnv: commandConfig({ "core.hooksPath": options.hooks }),
  };
}

/**
 * Removes the worktree and git's entry for it. When git cannot (the agent broke the worktree's
 * `.git`), the folder goes and `git worktree prune` drops the entry that no longer has one.
 */
export async function removeWorktree(repository: string, dir: string): Promise<void> {
  await git(repository, ["worktree", "remove", "--force", dir]).catch(async () => {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    await git(repository, ["worktree", "prune"]).catch(() => undefined);
  });
}

/** For an attempt killed with the batch: its folder is gone, so its entry is pruned. */
export function pruneWorktrees(repository: string): void {
  try {
    const workTree = workTreeRootOf(repository) ?? undefined;
    gitSync(["worktree", "prune"], { cwd: repository, workTree });
  } catch {
    // The repository itself is gone or broken: there is no entry left to drop.
  }
}

/**
 * Settings of the highest precedence, through git's GIT_CONFIG_COUNT environment: a
 * repository's own `core.hooksPath` (husky sets one) does not override them.
 */
function commandConfig(settings: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  const entries = Object.entries(settings);
  const first = Number(process.env.GIT_CONFIG_COUNT ?? 0) || 0;
  entries.forEach(([key, value], at) => {
    env[`GIT_CONFIG_KEY_${first + at}`] = key;
    env[`GIT_CONFIG_VALUE_${first + at}`] = value;
  });
  env.GIT_CONFIG_COUNT = String(first + entries.length);
  return env;
}

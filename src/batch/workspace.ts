// A fresh place for each attempt, all under one folder that is removed afterwards: the task's
// repository at the base commit, its own HOME and temp dir. A local repository is checked out
// as a detached worktree of it (worktree-workspace.ts), which copies nothing; a URL's mirror,
// or any repository with `--isolation clone`, is cloned, which shares nothing. Either way no
// attempt sees another's files. What the agent changed is the difference between the tree
// after setup and the tree at the end, untracked files included.

import { createHash, randomBytes } from "node:crypto";
import { copyFile, mkdir, mkdtemp, rename, rm, stat, writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { git, WorkspaceError } from "./workspace-git.js";
import { addWorktree, removeWorktree } from "./worktree-workspace.js";

/** How an attempt gets its own copy of a local repository (`--isolation`). */
export type Isolation = "worktree" | "clone";
export const ISOLATIONS: readonly Isolation[] = ["worktree", "clone"];

export interface Workspace {
  /** The folder holding everything below; removing it removes the attempt's every file. */
  root: string;
  /** Where the agent works: the worktree, the clone, or an empty repository. */
  dir: string;
  home: string;
  tmp: string;
  /** The index git keeps for `dir`, which the snapshots start from. */
  indexFile: string;
  /** For a worktree: the repository it belongs to. */
  worktreeOf?: string;
  /** What the attempt's git needs set (a worktree's guard hooks); empty for a clone. */
  gitEnv: Record<string, string>;
}

/** Identity for commits made in a workspace: the attempt's HOME has no git config of its own. */
const GIT_CONFIG = "[user]\n\tname = agentloop batch\n\temail = batch@agentloop.invalid\n";

/** A new, unique folder name for one attempt at task `id`. */
export function workspaceRoot(parent: string, id: string): string {
  return join(parent, `${id}-${randomBytes(4).toString("hex")}`);
}

/**
 * Makes the attempt's folders under `root` and checks out the repository. `source` is what
 * `localSource` returned for the task's repo, or undefined for an empty workspace; `worktree`
 * says to check it out as a worktree of it rather than a clone.
 */
export async function createWorkspace(options: {
  root: string;
  source: string | undefined;
  baseCommit: string | undefined;
  worktree: boolean;
}): Promise<Workspace> {
  const { root, source, baseCommit } = options;
  await mkdir(root, { recursive: true });
  const dir = join(root, "workspace");
  const workspace: Workspace = {
    root,
    dir,
    home: join(root, "home"),
    tmp: join(root, "tmp"),
    indexFile: join(dir, ".git", "index"),
    gitEnv: {},
  };
  try {
    await mkdir(workspace.home);
    await mkdir(workspace.tmp);
    await writeFile(join(workspace.home, ".gitconfig"), GIT_CONFIG);
    // A local path is cloned locally anyway (hard links where it can); an explicit --local
    // would make git fail, not copy, when the work dir is on another file system.
    const clone = ["clone", "--quiet"];
    if (source && options.worktree) {
      const hooks = join(root, "git-hooks");
      const attached = await addWorktree({ repository: source, dir, hooks, baseCommit });
      Object.assign(workspace, { ...attached, worktreeOf: source });
    } else if (source && baseCommit) {
      await git(root, [...clone, "--no-checkout", source, "workspace"]);
      await git(dir, ["checkout", "--quiet", "--detach", baseCommit]);
    } else if (source) {
      await git(root, [...clone, source, "workspace"]);
    } else {
      await git(root, ["init", "--quiet", "workspace"]);
    }
  } catch (error) {
    await removeWorkspace(workspace);
    throw error;
  }
  return workspace;
}

export async function removeWorkspace(workspace: Workspace): Promise<void> {
  if (workspace.worktreeOf) await removeWorktree(workspace.worktreeOf, workspace.dir);
  await rm(workspace.root, { recursive: true, force: true, maxRetries: 3 });
}

/** Git's name for the tree of an empty folder. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/**
 * The git tree the agent starts from. A fresh checkout is its commit's tree exactly (ignored
 * files aside), which git knows without reading a file; after a setup command, the files are
 * read as `changesSince` does.
 */
export async function startingTree(workspace: Workspace, afterSetup: boolean): Promise<string> {
  if (afterSetup) {
    await stageEverything(workspace);
    return (await git(workspace.dir, ["write-tree"], privateIndex(workspace))).trim();
  }
  const head = await git(workspace.dir, ["rev-parse", "--verify", "--quiet", "HEAD^{tree}"]).catch(
    () => EMPTY_TREE,
  );
  return head.trim();
}

/**
 * What changed since `tree`, untracked files included, as a patch `git apply` takes (binary
 * files too). The agent's own index, and what it staged, stay untouched.
 */
export async function changesSince(workspace: Workspace, tree: string): Promise<string> {
  await stageEverything(workspace);
  return git(
    workspace.dir,
    ["diff", "--cached", "--binary", "--no-color", "--no-ext-diff", tree],
    privateIndex(workspace),
  );
}

/**
 * Every file but the ignored ones, in a private index. It starts as a copy of the agent's, so
 * git can skip rehashing the files that did not change.
 */
async function stageEverything(workspace: Workspace): Promise<void> {
  const env = privateIndex(workspace);
  await copyFile(workspace.indexFile, env.GIT_INDEX_FILE).catch(() => undefined);
  await git(workspace.dir, ["add", "--all"], env);
}

function privateIndex(workspace: Workspace): { GIT_INDEX_FILE: string } {
  return { GIT_INDEX_FILE: join(workspace.root, "snapshot.index") };
}

/** Whether a task's `repo` names a repository on this machine rather than a URL. */
export function isLocalRepository(repo: string): boolean {
  return isAbsolute(repo) || repo.startsWith(".");
}

/**
 * A local path to check out from. Local repositories are used as they are; a URL is cloned
 * once into `cache` as a mirror that every task of the batch clones from.
 */
export async function localSource(repo: string, base: string, cache: string): Promise<string> {
  if (isLocalRepository(repo)) {
    const path = resolve(base, repo);
    if (!(await exists(path))) throw new WorkspaceError(`repository ${path} does not exist`);
    return path;
  }
  const mirror = join(cache, `${createHash("sha256").update(repo).digest("hex").slice(0, 16)}.git`);
  if (await exists(mirror)) return mirror;
  await mkdir(cache, { recursive: true });
  const incoming = await mkdtemp(`${mirror}.incoming-`);
  try {
    await git(cache, ["clone", "--quiet", "--mirror", repo, incoming]);
    // Another worker may have won the race; either mirror is as good.
    await rename(incoming, mirror).catch(() => undefined);
  } finally {
    await rm(incoming, { recursive: true, force: true });
  }
  return mirror;
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

// A fresh place for each attempt: its own clone of the task's repository at the base commit
// (never a shared worktree, so no attempt sees another's files or branches), its own HOME and
// temp dir, all under one folder that is removed afterwards. What the agent changed is the
// difference between the tree after setup and the tree at the end, untracked files included.

import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { copyFile, mkdir, mkdtemp, rename, rm, stat, writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface Workspace {
  /** The folder holding everything below; removing it removes the attempt's every file. */
  root: string;
  /** Where the agent works: the clone, or an empty repository. */
  dir: string;
  home: string;
  tmp: string;
}

export class WorkspaceError extends Error {
  override name = "WorkspaceError";
}

/** Identity for commits made in a workspace: the attempt's HOME has no git config of its own. */
const GIT_CONFIG = "[user]\n\tname = agentloop batch\n\temail = batch@agentloop.invalid\n";

/** A new, unique folder name for one attempt at task `id`. */
export function workspaceRoot(parent: string, id: string): string {
  return join(parent, `${id}-${randomBytes(4).toString("hex")}`);
}

/**
 * Makes the attempt's folders under `root` and checks out the repository. `source` is what
 * `localSource` returned for the task's repo, or undefined for an empty workspace.
 */
export async function createWorkspace(options: {
  root: string;
  source: string | undefined;
  baseCommit: string | undefined;
}): Promise<Workspace> {
  const { root } = options;
  await mkdir(root, { recursive: true });
  const workspace = {
    root,
    dir: join(root, "workspace"),
    home: join(root, "home"),
    tmp: join(root, "tmp"),
  };
  try {
    await mkdir(workspace.home);
    await mkdir(workspace.tmp);
    await writeFile(join(workspace.home, ".gitconfig"), GIT_CONFIG);
    const clone = ["clone", "--quiet", "--local"];
    if (options.source && options.baseCommit) {
      await git(root, [...clone, "--no-checkout", options.source, "workspace"]);
      await git(workspace.dir, ["checkout", "--quiet", "--detach", options.baseCommit]);
    } else if (options.source) {
      await git(root, [...clone, options.source, "workspace"]);
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
  await copyFile(join(workspace.dir, ".git", "index"), env.GIT_INDEX_FILE).catch(() => undefined);
  await git(workspace.dir, ["add", "--all"], env);
}

function privateIndex(workspace: Workspace): NodeJS.ProcessEnv & { GIT_INDEX_FILE: string } {
  return { ...process.env, GIT_INDEX_FILE: join(workspace.root, "snapshot.index") };
}

/**
 * A local path to clone from. Local repositories are used as they are; a URL is cloned once
 * into `cache` as a mirror that every task of the batch clones from.
 */
export async function localSource(repo: string, base: string, cache: string): Promise<string> {
  if (isAbsolute(repo) || repo.startsWith(".")) {
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

async function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await run("git", args, {
      cwd,
      env: env ?? process.env,
      maxBuffer: 1024 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    const reason = (stderr || message).trim().split("\n").at(-1);
    throw new WorkspaceError(`git ${args[0]} failed: ${reason}`);
  }
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

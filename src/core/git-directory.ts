// Where a workspace's git repository is, read from the files git keeps, without running git:
// its root, its git directory (a worktree's is elsewhere), and the exclude list of one clone.

import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";

/**
 * Every directory from the repository root down to `cwd`, outermost first; outside a git
 * repository `cwd` alone. The root is the nearest directory holding `.git` (a directory, or
 * the file a worktree has).
 */
export function directoriesFromRepositoryRoot(cwd: string): string[] {
  const chain = [cwd];
  let directory = cwd;
  while (!existsSync(join(directory, ".git"))) {
    const parent = dirname(directory);
    if (parent === directory) return [cwd];
    directory = parent;
    chain.push(directory);
  }
  return chain.reverse();
}

/** `.git` itself, or the directory a worktree's `.git` file points to; null when neither. */
export function gitDirectoryOf(dotGit: string): string | null {
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1];
    return pointer ? resolve(join(dotGit, ".."), pointer.trim()) : null;
  } catch {
    return null;
  }
}

/**
 * The git directory a work tree at `root` shares with its other worktrees (where info/exclude,
 * objects and refs live): a linked worktree's `commondir`, else its own; null outside git.
 */
export function sharedGitDirectoryOf(root: string): string | null {
  const gitDirectory = gitDirectoryOf(join(root, ".git"));
  if (!gitDirectory) return null;
  try {
    return resolve(gitDirectory, readFileSync(join(gitDirectory, "commondir"), "utf8").trim());
  } catch {
    // No commondir: this is the main work tree's own git directory.
    return gitDirectory;
  }
}

/**
 * The top of the git work tree `cwd` is in (the nearest directory above it whose `.git` leads to
 * a git directory), or null outside one. Read from the files, never from git's config, which
 * could point elsewhere (core.worktree).
 */
export function workTreeRootOf(cwd: string): string | null {
  const root = directoriesFromRepositoryRoot(cwd)[0] as string;
  return gitDirectoryOf(join(root, ".git")) ? root : null;
}

/**
 * What holds the git state of the repository `workspace` is in, which the sandbox keeps
 * read-only: the `.git` at its work tree's root (a directory, or a linked worktree's pointer
 * file), the git directory it leads to (a worktree's own `worktrees/<name>`) and the git
 * directory shared by all its worktrees; each once, links resolved. Empty outside a repository.
 */
export function repositoryGitPaths(workspace: string): string[] {
  const root = workTreeRootOf(workspace);
  if (root === null) return [];
  const found = [
    join(root, ".git"),
    gitDirectoryOf(join(root, ".git")),
    sharedGitDirectoryOf(root),
  ];
  const paths = new Set<string>();
  for (const path of found) {
    try {
      if (path) paths.add(realpathSync(path));
    } catch {
      // Gone since it was found: nothing left there to protect.
    }
  }
  return [...paths];
}

/**
 * The root of the repository's main work tree, seen from `cwd` anywhere in it or in one of its
 * linked worktrees: what names "this project" whatever subdirectory or worktree a session is
 * in. Null outside a repository.
 */
export function mainWorkTreeRoot(cwd: string): string | null {
  const root = directoriesFromRepositoryRoot(cwd)[0] as string;
  const shared = sharedGitDirectoryOf(root);
  if (!shared) return null;
  // A main work tree keeps its git directory as `.git` at its root; a bare repository's
  // worktrees have no main one to share, nor a submodule another's: their own root names them.
  return basename(shared) === ".git" ? dirname(shared) : root;
}

/**
 * Adds `file` to the exclude list of the repository holding it (`.git/info/exclude`: this
 * clone's own, unlike the shared .gitignore), once; outside a repository it does nothing.
 */
export async function excludeFromGit(file: string): Promise<void> {
  const root = directoriesFromRepositoryRoot(dirname(file))[0] as string;
  // A worktree's git directory names the shared one, where git reads info/exclude.
  const shared = sharedGitDirectoryOf(root);
  if (!shared) return;
  const exclude = join(shared, "info", "exclude");
  const line = `/${relative(root, file).split(sep).join("/")}`;
  const text = await readFile(exclude, "utf8").catch(() => "");
  if (text.split(/\r?\n/).includes(line)) return;
  await mkdir(dirname(exclude), { recursive: true });
  await appendFile(exclude, `${text === "" || text.endsWith("\n") ? "" : "\n"}${line}\n`);
}

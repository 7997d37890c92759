// Where a work tree's snapshots are kept. One store per work tree, under agentloop's state
// directory (`checkpoints/<name>-<hash of its path>.git`), shared by every session in it, so the
// same content is stored once however many sessions snapshot it. Each session keeps its own index
// (git's stat cache of the work tree) beside its session file, so sessions running at once never
// write the same index. A session's first snapshot starts from the index the latest session left
// in the store, or else from a copy of the person's own index, so it hashes only the files whose
// stat differs. Files the person committed are not copied: a snapshot's tree names their blobs,
// which a rewind reads from the repository's object directory (read only, never written).

import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { gitDirectoryOf, sharedGitDirectoryOf } from "../core/git-directory.js";
import { stateDirectory } from "../core/state-directory.js";

export interface ShadowPlace {
  /** The store: a git directory of agentloop's own. */
  gitDir: string;
  /** This session's index. */
  index: string;
  /** Index files this session's first snapshot may start from: the first that exists. */
  seeds: string[];
  /** Where a session leaves its index for the next session in this work tree; null if nowhere. */
  sharedIndex: string | null;
  /**
   * The repository's object directory, where the blobs of files unchanged since the person's
   * index are read; null when every blob is in the store.
   */
  theirObjects: string | null;
}

/**
 * The attributes of every file in a snapshot, read by git before any .gitattributes of the tree:
 * bytes are stored as they are, through no filter, line-ending rule or driver a tree can name.
 */
export const BYTES_AS_THEY_ARE =
  "* -text -eol -filter -diff -merge -ident -working-tree-encoding\n";

/** The store of the work tree at `root`, and the index of the session whose checkpoints are in `checkpoints`. */
export function shadowPlace(
  checkpoints: string,
  root: string,
  env: NodeJS.ProcessEnv,
): ShadowPlace {
  // Sessions from before the shared store kept a repository of their own, which stays theirs.
  const own = join(checkpoints, "shadow.git");
  if (existsSync(join(own, "HEAD"))) {
    return {
      gitDir: own,
      index: join(own, "index"),
      seeds: [],
      sharedIndex: null,
      theirObjects: null,
    };
  }
  const gitDir = join(stateDirectory(env), "checkpoints", storeName(root));
  const theirGitDir = gitDirectoryOf(join(root, ".git"));
  const shared = sharedGitDirectoryOf(root);
  return {
    gitDir,
    index: join(checkpoints, "index"),
    seeds: [join(gitDir, "index"), ...(theirGitDir ? [join(theirGitDir, "index")] : [])],
    sharedIndex: join(gitDir, "index"),
    theirObjects: shared ? join(shared, "objects") : null,
  };
}

/** The work tree's folder name, for people who look, and a hash of its path, to tell two apart. */
function storeName(root: string): string {
  const name =
    basename(root)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .slice(0, 40) || "root";
  const hash = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return `${name}-${hash}.git`;
}

/**
 * Makes the store unless it exists, without running git: the few files that make a directory a
 * git directory are written in a directory beside it and renamed into place, so two sessions
 * starting at once never see half a store.
 */
export function ensureStore(gitDir: string): void {
  if (existsSync(join(gitDir, "HEAD"))) return;
  mkdirSync(dirname(gitDir), { recursive: true, mode: 0o700 });
  const making = `${gitDir}.${randomUUID()}`;
  for (const directory of ["objects", "refs", "info"])
    mkdirSync(join(making, directory), { recursive: true, mode: 0o700 });
  writeFileSync(join(making, "config"), "[core]\n\trepositoryformatversion = 0\n");
  writeFileSync(join(making, "info", "attributes"), BYTES_AS_THEY_ARE);
  writeFileSync(join(making, "HEAD"), "ref: refs/heads/main\n");
  try {
    renameSync(making, gitDir);
  } catch (error) {
    rmSync(making, { recursive: true, force: true });
    // Another session made it first.
    if (!existsSync(join(gitDir, "HEAD"))) throw error;
  }
}

// A snapshot of a git work tree, kept in a repository of agentloop's own (the "shadow"), so that
// what bash changed (sed -i, rm, chmod, a generator) can be undone too. The user's repository is
// only read, from its files, to find the work tree and its ignore rules: every command here runs
// (through the hardened git of core/git.ts) with its git directory, work tree and index pointing
// at the shadow, so no ref, stash or index of theirs is ever written and none of their config
// is read. The shadow's index keeps git's stat cache, so a snapshot after the first hashes only
// the files that changed.

import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { gitSync } from "../core/git.js";
import { sharedGitDirectoryOf } from "../core/git-directory.js";

/** Files larger than this are left out of snapshots (and named in the exclude file). */
export const SNAPSHOT_FILE_CAP = 5 * 1024 * 1024;

/** One entry of a snapshot's tree: git's mode (100644, 100755, 120000) and blob id. */
export interface TreeEntry {
  mode: string;
  blob: string;
}

export interface ShadowRepo {
  /** The user's work tree: the top of their repository. */
  readonly root: string;
  /** Takes a snapshot of the work tree now; returns its tree id. */
  snapshot(): string;
  /** Every file of a snapshot, by path relative to the root. */
  files(tree: string): Map<string, TreeEntry>;
  /** The paths that differ between two snapshots. */
  changed(from: string, to: string): string[];
  /** A blob's bytes. */
  blob(id: string): Buffer;
  /** Many blobs' bytes, read by one git process per batch rather than one per blob. */
  blobs(ids: readonly string[]): Map<string, Buffer>;
}

/** Blobs read by one `git cat-file --batch`: snapshot files are 5 MiB at most, so 400 MiB at most. */
const BLOBS_PER_BATCH = 80;

/**
 * The attributes of every file in a snapshot, read by git before any .gitattributes of the tree:
 * bytes are stored as they are, through no filter, line-ending rule or driver a tree can name.
 */
const BYTES_AS_THEY_ARE = "* -text -eol -filter -diff -merge -ident -working-tree-encoding\n";

/** Opens (making it the first time) the shadow repository at `gitDir` for the work tree `root`. */
export function openShadowRepo(gitDir: string, root: string, env: NodeJS.ProcessEnv): ShadowRepo {
  const shadowEnv = {
    GIT_INDEX_FILE: join(gitDir, "index"),
    // Paths are file names, never patterns: a file called "*.ts" is that file alone.
    GIT_LITERAL_PATHSPECS: "1",
    LC_ALL: "C",
  };
  // The user's signing and line-ending settings have no say in a snapshot.
  const settings = [
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.safecrlf=false",
    "-c",
    "core.fileMode=true",
    "-c",
    "core.symlinks=true",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
    "-c",
    "core.untrackedCache=true",
  ];
  const git = (args: string[], input?: string): Buffer =>
    gitSync([...settings, ...args], {
      cwd: root,
      gitDir,
      workTree: root,
      env: shadowEnv,
      baseEnv: env,
      input,
      noSystemConfig: true,
    });
  if (!existsSync(join(gitDir, "HEAD"))) {
    mkdirSync(gitDir, { recursive: true, mode: 0o700 });
    git(["init", "--quiet"]);
  }
  const attributes = join(gitDir, "info", "attributes");
  if (!existsSync(attributes)) {
    mkdirSync(join(gitDir, "info"), { recursive: true });
    writeFileSync(attributes, BYTES_AS_THEY_ARE);
  }
  const excludeFile = join(gitDir, "info", "exclude");
  const bigFiles = new Set<string>();

  const shared = sharedGitDirectoryOf(root);
  const userExclude = shared ? join(shared, "info", "exclude") : null;
  let excludes = "";
  /**
   * The user's own exclude rules, the files over the cap, and agentloop's state inside the tree;
   * rewritten only when they change, so that git's untracked cache stays valid.
   */
  function writeExcludes(): void {
    const theirs = userExclude && existsSync(userExclude) ? readFileSync(userExclude, "utf8") : "";
    const ours = [...bigFiles].map((path) => `/${escapeGlob(path)}`);
    const inside = relative(root, gitDir);
    if (!inside.startsWith("..")) ours.push(`/${escapeGlob(inside)}/`);
    const text = `${theirs}\n${ours.join("\n")}\n`;
    if (text === excludes) return;
    mkdirSync(join(gitDir, "info"), { recursive: true });
    writeFileSync(excludeFile, text);
    excludes = text;
  }
  const paths = (list: readonly string[]) => `${list.join("\0")}\0`;
  const fromList = ["--pathspec-from-file=-", "--pathspec-file-nul"];

  return {
    root,
    snapshot() {
      writeExcludes();
      // One walk of the work tree finds what changed since the last snapshot (new, modified,
      // deleted); the index's stat cache and its untracked cache keep it short.
      const changed = split(
        git(["ls-files", "-z", "--others", "--modified", "--exclude-standard"]),
      );
      const tooBig = changed.filter((path) => sizeOf(join(root, path)) > SNAPSHOT_FILE_CAP);
      if (tooBig.length > 0) {
        for (const path of tooBig) bigFiles.add(path);
        writeExcludes();
        git(["rm", "--cached", "--quiet", "--ignore-unmatch", ...fromList], paths(tooBig));
      }
      const added = changed.filter((path) => !bigFiles.has(path));
      if (added.length > 0) git(["add", "--all", ...fromList], paths(added));
      return git(["write-tree"]).toString().trim();
    },
    files(tree) {
      const entries = new Map<string, TreeEntry>();
      for (const line of split(git(["ls-tree", "-r", "-z", tree]))) {
        // "<mode> <type> <id>\t<path>"
        const tab = line.indexOf("\t");
        const [mode = "", , blob = ""] = line.slice(0, tab).split(" ");
        entries.set(line.slice(tab + 1), { mode, blob });
      }
      return entries;
    },
    changed(from, to) {
      return split(git(["diff-tree", "-r", "-z", "--name-only", "--no-renames", from, to]));
    },
    blob: (id) => git(["cat-file", "blob", id]),
    blobs(ids) {
      const found = new Map<string, Buffer>();
      const unique = [...new Set(ids)];
      for (let start = 0; start < unique.length; start += BLOBS_PER_BATCH) {
        const batch = unique.slice(start, start + BLOBS_PER_BATCH);
        const output = git(["cat-file", "--batch"], `${batch.join("\n")}\n`);
        // Each blob comes as "<id> blob <size>\n<bytes>\n".
        let at = 0;
        for (const id of batch) {
          const header = output.indexOf(10, at);
          const size = Number(output.subarray(at, header).toString().split(" ")[2]);
          found.set(id, output.subarray(header + 1, header + 1 + size));
          at = header + 1 + size + 1;
        }
      }
      return found;
    },
  };
}

function split(output: Buffer): string[] {
  return output
    .toString()
    .split("\0")
    .filter((part) => part !== "");
}

function sizeOf(path: string): number {
  try {
    return lstatSync(path).size;
  } catch {
    return 0;
  }
}

function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]!#]/g, (character) => `\\${character}`);
}

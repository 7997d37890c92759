// A snapshot of a git work tree, kept in a repository of agentloop's own (the "shadow"), so that
// what bash changed (sed -i, rm, chmod, a generator) can be undone too. The user's repository is
// only read, from its files: its work tree, its ignore rules, its index (copied, as the stat cache
// a session starts from) and, for a rewind, its objects. Every command here runs (through the
// hardened git of core/git.ts) with its git directory, work tree and index pointing at the
// shadow, so no ref, stash or index of theirs is ever written and none of their config is read.
// A snapshot hashes only the files whose stat differs from the index; it runs as child processes
// (snapshotInBackground) while the model thinks, or at once (snapshot) for a rewind. A new store
// takes the trees of the person's last commit as one pack (index-trees.ts), and a snapshot that
// finds nothing changed since the one before is that one's tree, with no git run but the walk.

import { randomUUID } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { copyFile, rename, stat, utimes } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { gitAsync, gitSync } from "../core/git.js";
import { sharedGitDirectoryOf } from "../core/git-directory.js";
import { type CachedTrees, cachedTrees, cachedTreesInBackground } from "./index-trees.js";
import { BYTES_AS_THEY_ARE, ensureStore, type ShadowPlace } from "./shadow-store.js";

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
  /** Where the snapshots are kept: the work tree's store (a git directory of agentloop's own). */
  readonly store: string;
  /** Takes a snapshot of the work tree now, blocking until it is taken; returns its tree id. */
  snapshot(): string;
  /** Takes a snapshot in child processes, leaving the event loop free; resolves with its tree id. */
  snapshotInBackground(): Promise<string>;
  /** Every file of a snapshot, by path relative to the root. */
  files(tree: string): Map<string, TreeEntry>;
  /** The paths that differ between two snapshots. */
  changed(from: string, to: string): string[];
  /** A blob's bytes. */
  blob(id: string): Buffer;
  /** Many blobs' bytes, read by one git process per batch rather than one per blob. */
  blobs(ids: readonly string[]): Map<string, Buffer>;
  /**
   * The blobs no longer readable: a committed file's blob is read from the repository's own
   * objects, which a `git gc` may prune once nothing of theirs needs it.
   */
  missing(ids: readonly string[]): Set<string>;
}

/** Blobs read by one `git cat-file --batch`: snapshot files are 5 MiB at most, so 400 MiB at most. */
const BLOBS_PER_BATCH = 80;

/**
 * One step of a snapshot: a git command (`reading`: with the person's objects to read from),
 * copying an index file into place, or reading the trees an index caches.
 */
type GitStep = { git: string[]; input?: string; reading?: boolean };
type SnapshotStep = GitStep | { copyIndex: { from: string; to: string } } | { treesOf: string };
type StepOutput = string | CachedTrees;
type Steps<Result> = Generator<SnapshotStep, Result, StepOutput>;
type SnapshotSteps = Steps<string>;

/** A git step's standard output. */
function* run(step: GitStep): Steps<string> {
  const output = yield step;
  if (typeof output !== "string") throw new Error(`git ${step.git[0]} gave no output`);
  return output;
}

/** The trees the index at `path` caches. */
function* treesIn(path: string): Steps<CachedTrees> {
  const output = yield { treesOf: path };
  return typeof output === "string" ? { root: null, trees: [] } : output;
}

/** Opens the shadow repository at `place` for the work tree `root`; it is made by the first snapshot. */
export function openShadowRepo(
  place: ShadowPlace,
  root: string,
  env: NodeJS.ProcessEnv,
): ShadowRepo {
  const { gitDir } = place;
  const shadowEnv = {
    GIT_INDEX_FILE: place.index,
    // Paths are file names, never patterns: a file called "*.ts" is that file alone.
    GIT_LITERAL_PATHSPECS: "1",
    LC_ALL: "C",
  };
  // Only reading blobs looks in the repository's objects: a snapshot writes every tree into the
  // store (so checkpoints keep their shape whatever the person prunes), and git writing an object
  // it finds in an alternate would touch the person's files to keep it from being pruned.
  const readingEnv = place.theirObjects
    ? { ...shadowEnv, GIT_ALTERNATE_OBJECT_DIRECTORIES: place.theirObjects }
    : shadowEnv;
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
  const runIn = (variables: Record<string, string>, input?: string) => ({
    cwd: root,
    gitDir,
    workTree: root,
    env: variables,
    baseEnv: env,
    input,
    noSystemConfig: true,
  });
  const git = (args: string[], input?: string): Buffer =>
    gitSync([...settings, ...args], runIn(shadowEnv, input));
  const read = (args: string[], input?: string): Buffer =>
    gitSync([...settings, ...args], runIn(readingEnv, input));

  const excludeFile = join(gitDir, "info", "exclude");
  const bigFiles = new Set<string>();
  const shared = sharedGitDirectoryOf(root);
  const userExclude = shared ? join(shared, "info", "exclude") : null;
  /**
   * The user's own exclude rules, the files over the cap, and agentloop's state inside the tree;
   * rewritten only when they change, so that git's untracked cache stays valid.
   */
  function writeExcludes(): void {
    const theirs = userExclude && existsSync(userExclude) ? readFileSync(userExclude, "utf8") : "";
    const ours = [...bigFiles].map((path) => `/${escapeGlob(path)}`);
    for (const kept of [gitDir, dirname(place.index)]) {
      const inside = relative(root, kept);
      if (inside !== "" && !inside.startsWith("..")) ours.push(`/${escapeGlob(inside)}/`);
    }
    const text = `${theirs}\n${ours.join("\n")}\n`;
    const present = existsSync(excludeFile) ? readFileSync(excludeFile, "utf8") : null;
    if (text === present) return;
    mkdirSync(dirname(excludeFile), { recursive: true });
    // The store is shared: the file is replaced whole, never seen half written.
    const writing = `${excludeFile}.${randomUUID()}`;
    writeFileSync(writing, text);
    renameSync(writing, excludeFile);
  }
  const paths = (list: readonly string[]) => `${list.join("\0")}\0`;
  const fromList = ["--pathspec-from-file=-", "--pathspec-file-nul"];

  /** Whether this session's index was left in the store for the next session yet. */
  let leftForNext = place.sharedIndex === null;

  /**
   * The tree of this session's index as it stands, once known (the latest snapshot's): a
   * snapshot that finds nothing changed since is that tree. Null while the index is changing.
   */
  let indexTree: string | null = null;

  /** A new session's index starts as a copy of one that knows the work tree; the one it copied. */
  function* seedIndex(): Steps<string | null> {
    if (existsSync(place.index)) return null;
    mkdirSync(dirname(place.index), { recursive: true, mode: 0o700 });
    const seed = place.seeds.find((path) => existsSync(path));
    if (!seed) return null;
    yield { copyIndex: { from: seed, to: place.index } };
    return seed;
  }

  /**
   * The trees the person's index caches (their last commit's, unless they staged changes since),
   * read from their objects into the store as one pack; write-tree would write each folder's
   * tree as a file of its own. Returns the tree of the whole index, if that is one of them.
   */
  function* packTheirTrees(): Steps<string | null> {
    const { root, trees } = yield* treesIn(place.index);
    if (trees.length === 0) return null;
    try {
      const pack = ["pack-objects", "-q", join(gitDir, "objects", "pack", "pack")];
      yield* run({ git: pack, input: `${trees.join("\n")}\n`, reading: true });
      return root;
    } catch {
      // A tree their objects no longer have: write-tree writes whatever is missing.
      return null;
    }
  }

  function* snapshotOnce(): SnapshotSteps {
    writeExcludes();
    // One walk of the work tree finds what changed since the index (new, modified, deleted);
    // the index's stat cache keeps it to one lstat a file and one read a folder.
    const listing = ["ls-files", "-z", "--others", "--modified", "--exclude-standard"];
    const changed = split(yield* run({ git: listing }));
    if (changed.length === 0 && indexTree !== null) return indexTree;
    indexTree = null;
    const tooBig = changed.filter((path) => sizeOf(join(root, path)) > SNAPSHOT_FILE_CAP);
    if (tooBig.length > 0) {
      for (const path of tooBig) bigFiles.add(path);
      writeExcludes();
      const untrack = ["rm", "--cached", "--quiet", "--ignore-unmatch", ...fromList];
      yield* run({ git: untrack, input: paths(tooBig) });
    }
    const added = changed.filter((path) => !bigFiles.has(path));
    if (added.length > 0) yield* run({ git: ["add", "--all", ...fromList], input: paths(added) });
    // The blobs of files unchanged since the person's index are theirs, not the store's.
    indexTree = (yield* run({ git: ["write-tree", "--missing-ok"] })).trim();
    return indexTree;
  }

  function* snapshotSteps(): SnapshotSteps {
    ensureStore(gitDir);
    const attributes = join(gitDir, "info", "attributes");
    if (!existsSync(attributes)) writeFileSync(attributes, BYTES_AS_THEY_ARE);
    const seed = yield* seedIndex();
    // The store's own index names trees the store has; a copy of the person's, theirs.
    if (seed !== null && seed !== place.sharedIndex) indexTree = yield* packTheirTrees();
    let tree: string;
    try {
      tree = yield* snapshotOnce();
    } catch (error) {
      if (seed === null) throw error;
      // A copied index this git cannot use here (a split index, a merge half done): the
      // snapshot starts from an empty one instead, hashing every file once.
      rmSync(place.index, { force: true });
      indexTree = null;
      tree = yield* snapshotOnce();
    }
    if (!leftForNext && place.sharedIndex) {
      leftForNext = true;
      yield { copyIndex: { from: place.index, to: place.sharedIndex } };
    }
    return tree;
  }

  return {
    root,
    store: gitDir,
    snapshot() {
      const steps = snapshotSteps();
      let next = steps.next();
      while (!next.done) {
        const step = next.value;
        next = feed(
          steps,
          outcomeOf(() => {
            if ("treesOf" in step) return cachedTrees(step.treesOf);
            if ("copyIndex" in step) return copyIndexSync(step.copyIndex);
            return (step.reading ? read : git)(step.git, step.input).toString();
          }),
        );
      }
      return next.value;
    },
    async snapshotInBackground() {
      const steps = snapshotSteps();
      let next = steps.next();
      while (!next.done) {
        const step = next.value;
        const output: Promise<StepOutput> =
          "treesOf" in step
            ? cachedTreesInBackground(step.treesOf)
            : "copyIndex" in step
              ? copyIndex(step.copyIndex)
              : gitAsync(
                  [...settings, ...step.git],
                  runIn(step.reading ? readingEnv : shadowEnv, step.input),
                );
        next = feed(
          steps,
          await output.then(
            (text) => ({ output: text }),
            (error) => ({ error }),
          ),
        );
      }
      return next.value;
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
    blob: (id) => read(["cat-file", "blob", id]),
    blobs(ids) {
      const found = new Map<string, Buffer>();
      const unique = [...new Set(ids)];
      for (let start = 0; start < unique.length; start += BLOBS_PER_BATCH) {
        const batch = unique.slice(start, start + BLOBS_PER_BATCH);
        const output = read(["cat-file", "--batch"], `${batch.join("\n")}\n`);
        // Each blob comes as "<id> blob <size>\n<bytes>\n", a pruned one as "<id> missing\n".
        let at = 0;
        for (const id of batch) {
          const header = output.indexOf(10, at);
          const [, type, size] = output.subarray(at, header).toString().split(" ");
          at = header + 1;
          if (type === "missing") continue;
          found.set(id, output.subarray(at, at + Number(size)));
          at += Number(size) + 1;
        }
      }
      return found;
    },
    missing(ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Set();
      const answers = read(["cat-file", "--batch-check"], `${unique.join("\n")}\n`).toString();
      return new Set(
        answers
          .split("\n")
          .filter((line) => line.endsWith(" missing"))
          .map((line) => line.slice(0, -" missing".length)),
      );
    },
  };
}

/** What running one step came to: its output, or what it threw. */
type Outcome = { output: StepOutput } | { error: unknown };

function outcomeOf(work: () => StepOutput): Outcome {
  try {
    return { output: work() };
  } catch (error) {
    return { error };
  }
}

/** Gives the steps a step's output, or throws its failure into them (they may go on another way). */
function feed(steps: SnapshotSteps, outcome: Outcome) {
  return "error" in outcome ? steps.throw(outcome.error) : steps.next(outcome.output);
}

// Git trusts an index entry's stat data only for files older than the index file itself (its
// "racy git" rule), so a copied index keeps the original's time, rounded down. The copy is made
// beside its place and renamed in, as sessions share the store's.

function copyIndexSync({ from, to }: { from: string; to: string }): string {
  const { mtimeMs } = statSync(from);
  const writing = `${to}.${randomUUID()}`;
  copyFileSync(from, writing);
  utimesSync(writing, Math.floor(mtimeMs) / 1000, Math.floor(mtimeMs) / 1000);
  renameSync(writing, to);
  return "";
}

async function copyIndex({ from, to }: { from: string; to: string }): Promise<string> {
  const { mtimeMs } = await stat(from);
  const writing = `${to}.${randomUUID()}`;
  await copyFile(from, writing);
  await utimes(writing, Math.floor(mtimeMs) / 1000, Math.floor(mtimeMs) / 1000);
  await rename(writing, to);
  return "";
}

function split(output: Buffer | string): string[] {
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

// The trees a git index caches, read by agentloop (index-trees.ts) so that a new store takes the
// person's committed trees as one pack instead of writing a file per folder; and snapshots that
// reuse the tree before them when nothing changed, and only then.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cachedTrees } from "../src/checkpoints/index-trees.js";
import { checkpointData, createRecorder } from "../src/checkpoints/recorder.js";
import { fingerprint, git } from "./support/git-workspace.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A committed repository of `folders` folders of three files, one folder inside another. */
function committed(folders: number): { root: string; work: string } {
  const root = mkdtempSync(join(tmpdir(), "agentloop-trees-"));
  roots.push(root);
  const work = join(root, "work");
  for (let folder = 0; folder < folders; folder += 1) {
    const directory = join(work, `part-${folder}`, "inner");
    mkdirSync(directory, { recursive: true });
    for (const name of ["one.ts", "two.ts"])
      writeFileSync(join(work, `part-${folder}`, name), `${folder} ${name}\n`);
    writeFileSync(join(directory, "three.ts"), `${folder} three\n`);
  }
  git(work, "init", "--quiet", "--initial-branch=main");
  git(work, "add", "--all");
  git(work, "commit", "--quiet", "-m", "first");
  return { root, work };
}

const indexOf = (work: string) => join(work, ".git", "index");
const versionOf = (work: string) => readFileSync(indexOf(work)).readUInt32BE(4);

describe("the trees an index caches", () => {
  it.each([2, 3, 4])("are read from an index of version %i", (version) => {
    const { work } = committed(3);
    // An entry with an extended flag keeps the index at version 3.
    if (version === 3) git(work, "update-index", "--skip-worktree", "part-0/one.ts");
    git(work, "update-index", "--index-version", String(version));
    // write-tree fills in what the flag's change made stale, and writes the index again.
    const whole = git(work, "write-tree").trim();
    expect(versionOf(work)).toBe(version);

    const { root, trees } = cachedTrees(indexOf(work));
    expect(root).toBe(whole);
    const folders = ["part-0", "part-1", "part-2", "part-2/inner"];
    for (const folder of folders)
      expect(trees).toContain(git(work, "rev-parse", `HEAD:${folder}`).trim());
    expect(trees).toHaveLength(1 + 3 * 2);
  });

  it("leave out the folders a staged change made stale, and the top", () => {
    const { work } = committed(2);
    writeFileSync(join(work, "part-1", "inner", "three.ts"), "staged\n");
    git(work, "add", "part-1/inner/three.ts");

    const { root, trees } = cachedTrees(indexOf(work));
    expect(root).toBeNull();
    expect(trees).toEqual([
      git(work, "rev-parse", "HEAD:part-0").trim(),
      git(work, "rev-parse", "HEAD:part-0/inner").trim(),
    ]);
  });

  it("are none in a split index, whose entries are in another file", () => {
    const { work } = committed(2);
    git(work, "update-index", "--split-index");
    expect(cachedTrees(indexOf(work))).toEqual({ root: null, trees: [] });
  });

  it("are none in a file that is not an index", () => {
    const { root } = committed(1);
    writeFileSync(join(root, "not-an-index"), "DIRC but nothing after it");
    expect(cachedTrees(join(root, "not-an-index"))).toEqual({ root: null, trees: [] });
    expect(cachedTrees(join(root, "absent"))).toEqual({ root: null, trees: [] });
  });
});

describe("a work tree's store", () => {
  const recorderIn = (root: string, work: string, session = "s") => {
    const env = { ...process.env, XDG_STATE_HOME: join(root, "state") };
    return createRecorder(checkpointData(join(root, session), work, env), work);
  };
  const storeOf = (root: string) => {
    const checkpoints = join(root, "state", "agentloop", "checkpoints");
    const [store = ""] = readdirSync(checkpoints).filter((name) => name.endsWith(".git"));
    return join(checkpoints, store);
  };

  it("takes the person's committed trees as one pack on its first snapshot, and reads them back", () => {
    const { root, work } = committed(30);
    const before = fingerprint(join(work, ".git"));
    const recorder = recorderIn(root, work);

    const { tree } = recorder.checkpoint(1, "first");
    expect(tree).toBe(git(work, "rev-parse", "HEAD^{tree}").trim());
    // No loose object: every tree is in the pack.
    const objects = readdirSync(join(storeOf(root), "objects")).sort();
    expect(objects).toEqual(["pack"]);
    expect(
      readdirSync(join(storeOf(root), "objects", "pack")).filter((name) => name.endsWith(".pack")),
    ).toHaveLength(1);
    const files = recorder.data.shadow?.files(tree as string);
    expect(files?.size).toBe(90);
    expect(files?.get("part-29/inner/three.ts")?.blob).toBe(
      git(work, "rev-parse", "HEAD:part-29/inner/three.ts").trim(),
    );
    expect(fingerprint(join(work, ".git"))).toEqual(before);
  });

  it("gives the tree before when nothing changed, and a new one for each change", async () => {
    const { root, work } = committed(3);
    const recorder = recorderIn(root, work);
    const take = async (number: number) =>
      recorder.checkpointInBackground(number, `prompt ${number}`).tree;
    const first = await take(1);
    expect(await take(2)).toBe(first);

    writeFileSync(join(work, "part-1", "one.ts"), "changed\n");
    const changed = await take(3);
    expect(changed).not.toBe(first);
    expect(await take(4)).toBe(changed);

    writeFileSync(join(work, "part-2", "new.ts"), "new\n");
    const added = await take(5);
    expect(recorder.data.shadow?.files(added as string).has("part-2/new.ts")).toBe(true);

    writeFileSync(join(work, "part-1", "one.ts"), "1 one.ts\n");
    rmSync(join(work, "part-2", "new.ts"));
    expect(await take(6)).toBe(first);
    // Another session in the same work tree starts from this one's index and agrees.
    expect(recorderIn(root, work, "later").checkpoint(1, "later").tree).toBe(first);
  });
});

// The trees a git index already knows: its cache-tree (the "TREE" extension), which git keeps so
// that `write-tree` need not hash folders nothing changed in. A new store's first snapshot starts
// from a copy of the person's index, whose cache-tree names the trees of their last commit; those
// trees are copied into the store as one pack (shadow-repo.ts), instead of `write-tree` writing
// each as a file of its own (1,001 files at 100,000 files in 1,000 folders).
//
// The index format is git's Documentation/gitformat-index.txt: a header ("DIRC", version,
// entry count), the entries (versions 2 and 3 padded to 8 bytes, version 4 with each path
// sharing a prefix with the one before), then extensions (4-byte name, 4-byte length).

import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";

/** SHA-1 ids: a store of agentloop's is always SHA-1 (an index of SHA-256 ids is not read). */
const ID_BYTES = 20;
/** Bytes of an entry before its path: times, device, inode, mode, owner, size, id, flags. */
const ENTRY_FIXED = 40 + ID_BYTES + 2;
const EXTENDED_FLAG = 0x4000;
const NAME_MASK = 0x0fff;

export interface CachedTrees {
  /** The tree of the whole index, when its cache-tree is valid at the top. */
  root: string | null;
  /** Every tree id the cache-tree holds, the root's included. */
  trees: string[];
}

const NONE: CachedTrees = { root: null, trees: [] };

/**
 * The trees the index at `path` caches; none when it has no cache-tree, is a split index (its
 * entries live in another file), or is not an index this reader knows. Never throws.
 */
export function cachedTrees(path: string): CachedTrees {
  try {
    return treesOf(readFileSync(path));
  } catch {
    return NONE;
  }
}

/** The same, the file read off the main thread (an index of 100,000 files is 9 MB). */
export async function cachedTreesInBackground(path: string): Promise<CachedTrees> {
  try {
    return treesOf(await readFile(path));
  } catch {
    return NONE;
  }
}

function treesOf(index: Buffer): CachedTrees {
  if (index.toString("latin1", 0, 4) !== "DIRC") return NONE;
  const version = index.readUInt32BE(4);
  if (version < 2 || version > 4) return NONE;
  let at = 12;
  for (let left = index.readUInt32BE(8); left > 0; left -= 1) at = entryEnd(index, at, version);
  // Extensions follow the entries, up to the trailing checksum.
  while (at + 8 <= index.length - ID_BYTES) {
    const name = index.toString("latin1", at, at + 4);
    const size = index.readUInt32BE(at + 4);
    const data = index.subarray(at + 8, at + 8 + size);
    if (name === "link") return NONE;
    if (name === "TREE") return treeExtension(data);
    at += 8 + size;
  }
  return NONE;
}

/** Where the entry starting at `at` ends. */
function entryEnd(index: Buffer, at: number, version: number): number {
  const flags = index.readUInt16BE(at + ENTRY_FIXED - 2);
  const fixed = ENTRY_FIXED + (version >= 3 && flags & EXTENDED_FLAG ? 2 : 0);
  let path = at + fixed;
  if (version === 4) {
    // A varint of how many bytes of the previous path to drop, then the rest, NUL-ended.
    while ((index[path] as number) & 0x80) path += 1;
    return index.indexOf(0, path + 1) + 1;
  }
  const length = flags & NAME_MASK;
  const nameLength = length < NAME_MASK ? length : index.indexOf(0, path) - path;
  // Padded with 1 to 8 NULs to a multiple of 8 bytes.
  return at + ((fixed + nameLength + 8) & ~7);
}

/**
 * Each node of the cache-tree: its path, NUL, "<entries> <subtrees>\n", and its id unless the
 * entry count is -1 (invalidated by a change since it was computed). The root comes first.
 */
function treeExtension(data: Buffer): CachedTrees {
  const trees: string[] = [];
  let root: string | null = null;
  let at = 0;
  let first = true;
  while (at < data.length) {
    const nul = data.indexOf(0, at);
    const newline = data.indexOf(10, nul);
    if (nul < 0 || newline < 0) return NONE;
    const entries = Number(data.toString("latin1", nul + 1, newline).split(" ")[0]);
    at = newline + 1;
    if (entries >= 0) {
      const id = data.toString("hex", at, at + ID_BYTES);
      if (id.length !== 2 * ID_BYTES) return NONE;
      trees.push(id);
      if (first) root = id;
      at += ID_BYTES;
    }
    first = false;
  }
  return { root, trees };
}

// The existing paths closest to one that does not exist, so the read tool can answer a wrong
// path with the right one: names alike in the same directory (a typo, another extension),
// then files of the very name elsewhere in the workspace, found in a search cut short in depth,
// directories and time so that a large workspace still answers at once.

import { readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { levenshtein } from "./similar-lines.js";

const SUGGESTIONS = 5;
const SEARCH_MAX_DEPTH = 6;
const SEARCH_MAX_DIRECTORIES = 2_000;
const SEARCH_MAX_MS = 200;
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".git"]);

/** Up to a few existing paths like `path`, the closest first. */
export async function closestNames(path: string, workspace: string): Promise<string[]> {
  const wanted = basename(path);
  const nearby = (await readdir(dirname(path)).catch(() => [] as string[]))
    .map((name) => ({ name, distance: nameDistance(wanted, name) }))
    .filter(({ distance }) => distance !== null)
    .sort((a, b) => (a.distance ?? 0) - (b.distance ?? 0) || (a.name < b.name ? -1 : 1))
    .map(({ name }) => join(dirname(path), name));
  const elsewhere = await findByName(workspace, wanted);
  return [...new Set([...nearby, ...elsewhere])].slice(0, SUGGESTIONS);
}

/**
 * How far apart two file names are (edits, ignoring case), or null when they are not alike:
 * more than a third of the name differs and the names differ beyond their extensions.
 */
function nameDistance(wanted: string, name: string): number | null {
  const a = wanted.toLowerCase();
  const b = name.toLowerCase();
  const distance = levenshtein(a, b);
  const sameStem = stem(a) === stem(b);
  return distance <= Math.floor(Math.max(a.length, b.length) / 3) || sameStem ? distance : null;
}

function stem(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

/** Files named `name` under `root`, breadth first, stopping at a few levels, directories and ms. */
async function findByName(root: string, name: string): Promise<string[]> {
  const deadline = Date.now() + SEARCH_MAX_MS;
  const wanted = name.toLowerCase();
  const found: string[] = [];
  let level = [root];
  let visited = 0;
  for (let depth = 0; depth <= SEARCH_MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const directory of level) {
      if (found.length >= SUGGESTIONS || visited >= SEARCH_MAX_DIRECTORIES) return found;
      if (Date.now() > deadline) return found;
      visited += 1;
      const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const path = join(directory, entry.name);
        if (entry.name.toLowerCase() === wanted) found.push(path);
        if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) next.push(path);
      }
    }
    level = next;
  }
  return found;
}

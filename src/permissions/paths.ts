// Where a path argument points, relative to the workspace, as far as can be known before the
// command runs: `~`, `..`, globs and earlier `cd`s are taken into account.

import { dirname, isAbsolute, relative, resolve } from "node:path";
import type { Word } from "../shell/syntax.js";

export interface PathContext {
  workspace: string;
  home: string;
  /** Directories outside the workspace that commands may change freely (the sandbox's temp dir). */
  scratch: string[];
}

/** `inside`: strictly inside the workspace (or a scratch dir); `workspace`: the workspace itself
 * or everything in it; `outside`: anywhere else; `unknown`: only known when the command runs. */
export type Place = "inside" | "workspace" | "outside" | "unknown";

const GLOB = /[*?[]/;

/** The worst place the word can point to from any of the directories the command may run in
 * (null stands for a directory that is only known at run time). */
export function placeOf(word: Word, cwds: (string | null)[], context: PathContext): Place {
  const value = word.value;
  if (value === null || value === "") return "unknown";
  let path = value;
  if (path === "~" || path.startsWith("~/")) path = context.home + path.slice(1);
  else if (path.startsWith("~")) return "unknown";
  const places = isAbsolute(path)
    ? [placeFrom("/", path, context)]
    : cwds.map((cwd) => {
        return cwd === null ? "unknown" : placeFrom(cwd, path, context);
      });
  return worst(places);
}

function placeFrom(cwd: string, path: string, context: PathContext): Place {
  const glob = path.search(GLOB);
  if (glob < 0) return placeOfPath(resolve(cwd, path), context);
  // A glob deletes entries inside the directory it is in, never that directory itself.
  const directory = dirname(resolve(cwd, `${path.slice(0, glob)}x`));
  const place = placeOfPath(directory, context);
  const lastSegment = path.slice(path.lastIndexOf("/") + 1);
  if (place === "workspace") return lastSegment === "*" ? "workspace" : "inside";
  return place;
}

function placeOfPath(path: string, context: PathContext): Place {
  if (path === resolve(context.workspace)) return "workspace";
  const within = (root: string) => {
    const rel = relative(resolve(root), path);
    return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
  };
  return within(context.workspace) || context.scratch.some(within) ? "inside" : "outside";
}

const RANK: Record<Place, number> = { inside: 0, workspace: 1, unknown: 2, outside: 3 };

export function worst(places: Place[]): Place {
  return places.reduce<Place>((a, b) => (RANK[b] > RANK[a] ? b : a), "inside");
}

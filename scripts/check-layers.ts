// Keeps the architecture from decaying: every import in src/ must go to a part in the same
// layer or a lower one (docs/architecture.md draws them), no file may reach itself through
// its imports, and no two parts may import each other, even through others of their layer.
// It also holds one rule of safety that lives in the code's shape: only src/core/git.ts starts
// git, so every git agentloop runs for itself is the hardened one. Run by `npm test`; prints each
// problem and exits 1 when there is one.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { SESSION_PARTS } from "../src/assembly/parts.js";

/**
 * The parts, bottom to top; a part may import its own layer and those below it. A chapter that
 * describes itself is not here: its entry in the session's list names a part beside it.
 */
export const LAYERS = [
  ["core"],
  ["shell", "transcript", "sandbox", "images"],
  ["tools"],
  ["providers", "permissions"],
  ["compaction", "worktrees"],
  ["loop"],
  ["session"],
  ["checkpoints"],
  ["assembly"],
  ["terminal", "viewer", "export"],
  ["command-line"],
  ["repl", "batch", "acp"],
  ["doors"],
];

const SRC = resolve(import.meta.dirname, "../src");

/**
 * A chapter that describes itself (`src/NAME/chapter.ts`, spread into its entry of the session's
 * list) is in the layer of the part its `layerBeside` names, so adding it needs no line here.
 */
export const CHAPTER_LAYERS: ReadonlyMap<string, string> = new Map(
  SESSION_PARTS.flatMap(({ name, layerBeside }) =>
    layerBeside ? [[name, layerBeside] as const] : [],
  ),
);
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

/** The part a file of src/ belongs to: its folder, or for the root's files, what they are. */
export function partOf(file: string): string {
  const [first = "", ...rest] = relative(SRC, file).split(sep);
  if (rest.length > 0) return first;
  if (first === "loop.ts") return "loop";
  if (first === "cli.ts" || first === "index.ts") return "doors";
  return first.replace(/\.ts$/, "");
}

/** Its layer's index, or -1; a chapter's is that of the part it names, followed until listed. */
export function layerOf(part: string): number {
  let named = part;
  for (const seen = new Set<string>(); CHAPTER_LAYERS.has(named) && !seen.has(named); ) {
    seen.add(named);
    named = CHAPTER_LAYERS.get(named) as string;
  }
  return LAYERS.findIndex((layer) => layer.includes(named));
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Every import of every file, as file → files it imports. */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      targets.push(resolve(dirname(file), match[1] as string).replace(/\.js$/, ".ts"));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every upward import and every circle in `graph` (file → files it imports), in words. */
export function problemsIn(graph: Map<string, string[]>): string[] {
  const problems: string[] = [];
  const name = (file: string) => relative(SRC, file);
  for (const [file, targets] of graph) {
    const part = partOf(file);
    if (layerOf(part) === -1) problems.push(`${name(file)}: its part "${part}" is in no layer`);
    for (const target of targets) {
      const above = layerOf(partOf(target)) > layerOf(part);
      if (above) problems.push(`${name(file)} imports ${name(target)}, a part above its own`);
    }
  }
  // Depth-first, colouring files on the path: meeting one again closes a circle.
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (state.get(target) === "open") {
        const circle = [...path.slice(path.indexOf(target)), target].map(name);
        problems.push(`import circle: ${circle.join(" -> ")}`);
      } else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  problems.push(...partCircles(graph));
  return problems;
}

/** The one file that may start git: agentloop's hardened git. */
const GIT_HELPER = join(SRC, "core", "git.ts");
/** A process started with the program "git" named outright. */
const STARTS_GIT = /\b(?:execFile|execFileSync|spawn|spawnSync|exec|execSync)\(\s*["'`]git\b/;

/** Every file of `sources` (file → its text) that starts git itself rather than through the helper. */
export function gitStartedOutsideHelper(sources: Map<string, string>): string[] {
  return [...sources]
    .filter(([file, text]) => file !== GIT_HELPER && STARTS_GIT.test(text))
    .map(([file]) => `${relative(SRC, file)} starts git itself: run it through core/git.ts`);
}

/** Circles between parts (folders): a part that reaches itself through other parts' files. */
function partCircles(graph: Map<string, string[]>): string[] {
  const parts = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = partOf(file);
    const reached = parts.get(from) ?? new Set<string>();
    for (const target of targets) if (partOf(target) !== from) reached.add(partOf(target));
    parts.set(from, reached);
  }
  const problems: string[] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (part: string) => {
    state.set(part, "open");
    path.push(part);
    for (const target of [...(parts.get(part) ?? [])].sort()) {
      if (state.get(target) === "open") {
        const circle = [...path.slice(path.indexOf(target)), target];
        problems.push(`parts import each other: ${circle.join(" -> ")}`);
      } else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(part, "done");
  };
  for (const part of [...parts.keys()].sort()) if (!state.has(part)) visit(part);
  return problems;
}

export const SOURCE_ROOT = SRC;

if (process.argv[1] === import.meta.filename) {
  const files = sourceFiles(SRC);
  const sources = new Map(files.map((file) => [file, readFileSync(file, "utf8")]));
  const problems = [...problemsIn(importGraph(files)), ...gitStartedOutsideHelper(sources)];
  for (const problem of problems) console.error(`check-layers: ${problem}`);
  if (problems.length > 0) process.exit(1);
  console.log(
    `check-layers: imports in src/ run one way, with no circle; only core/git.ts starts git.`,
  );
}

// The instructions read into the system prompt (course s09, "memory"): the user's personal
// AGENTS.md first, then AGENTS.md (or CLAUDE.md) in every directory from the repository root
// down to the workspace, then AGENTS.local.md (or CLAUDE.local.md), the personal notes meant to
// be git-ignored, last: later text is the more specific, and the model weighs it more.
// `@path` pulls in another file, as Claude Code's CLAUDE.md imports do
// (https://code.claude.com/docs/en/memory): relative to the importing file or `~/`, nested up
// to 4 levels, not inside code spans or blocks. HTML comments are notes for people and dropped.
// Each file is judged where it leads (core/own-file.ts): a repository's AGENTS.md, or a file it
// imports, that links out of the repository is not read, and the notice names it.

import { existsSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { directoriesFromRepositoryRoot } from "../core/git-directory.js";
import { personalPlaces, readOwnFile } from "../core/own-file.js";
import { shortPath } from "./catalog.js";
import { agentloopConfigDirectory, homeOf, isFile, type Where } from "./places.js";

export const MAX_IMPORT_DEPTH = 4;

export interface ProjectMemory {
  /** The sections for the system prompt, or "" when there are no instructions. */
  text: string;
  /** One line per import not made: a missing file, a cycle, too deep, outside the repository. */
  problems: string[];
}

interface Reading {
  home: string;
  cwd: string;
  /** Where a repository's files may import from: the repository (a clone must not reach ~/.ssh). */
  root: string;
  /** Where the person's own instructions and their imports may lead. */
  personal: string[];
  problems: string[];
  /** Files already in the prompt: one imported twice is read once. */
  seen: Set<string>;
}

export function readProjectMemory(where: Where): ProjectMemory {
  const chain = directoriesFromRepositoryRoot(where.cwd);
  const reading: Reading = {
    home: homeOf(where.env),
    cwd: where.cwd,
    root: chain[0] ?? where.cwd,
    personal: personalPlaces(where.env),
    problems: [],
    seen: new Set(),
  };
  const sections: string[] = [];
  const add = (heading: string, file: string | undefined, confined: boolean) => {
    if (!file || reading.seen.has(file)) return;
    const text = readWithImports(file, [file], confined, reading).trim();
    if (text) sections.push(`${heading} from ${shortPath(file, reading)}:\n${text}`);
  };
  add(
    "Personal instructions",
    firstExisting([join(agentloopConfigDirectory(where.env), "AGENTS.md")]),
    false,
  );
  for (const directory of chain) {
    add(
      "Project instructions",
      firstExisting(["AGENTS.md", "CLAUDE.md"].map((name) => join(directory, name))),
      true,
    );
  }
  for (const directory of chain) {
    const names = ["AGENTS.local.md", "CLAUDE.local.md"];
    add("Local instructions", firstExisting(names.map((name) => join(directory, name))), true);
  }
  return { text: sections.join("\n\n"), problems: reading.problems };
}

/** The file's text without comments, followed by each file it imports (and theirs). */
function readWithImports(
  file: string,
  chain: string[],
  confined: boolean,
  reading: Reading,
): string {
  reading.seen.add(file);
  const read = readOwnFile(file, confined ? [reading.root] : reading.personal);
  if (!("text" in read)) {
    const why = "skipped" in read ? read.skipped : "it no longer exists";
    reading.problems.push(`${shortPath(file, reading)} not read: ${why}.`);
    return "";
  }
  const original = read.text;
  const text = outsideCode(original, (part) => part.replace(/<!--[\s\S]*?-->/g, ""));
  const parts = [text.trim()];
  const from = shortPath(file, reading);
  for (const written of importsIn(text)) {
    const target = written.startsWith("~/")
      ? join(reading.home, written.slice(2))
      : resolve(dirname(file), written);
    const problem = importProblem(target, chain, confined, reading);
    if (problem) {
      reading.problems.push(`${from}: @${written} not imported: ${problem}.`);
      continue;
    }
    if (reading.seen.has(target)) continue;
    const imported = readWithImports(target, [...chain, target], confined, reading).trim();
    if (imported) parts.push(`Imported from ${shortPath(target, reading)}:\n${imported}`);
  }
  return parts.join("\n\n");
}

function importProblem(
  target: string,
  chain: string[],
  confined: boolean,
  reading: Reading,
): string | null {
  if (chain.includes(target)) {
    const names = [...chain.slice(chain.indexOf(target)), target].map((file) =>
      shortPath(file, reading),
    );
    return `an import cycle (${names.join(" → ")})`;
  }
  if (chain.length > MAX_IMPORT_DEPTH)
    return `imports nest at most ${MAX_IMPORT_DEPTH} levels deep`;
  const inside = relative(reading.root, target);
  if (confined && (inside.startsWith("..") || inside.startsWith(sep))) {
    return "a repository's file imports only files inside the repository";
  }
  if (!existsSync(target)) return "no such file";
  return isFile(target) ? null : "not a file";
}

/** The paths of the `@path` imports in `text`, outside code spans and blocks. */
export function importsIn(text: string): string[] {
  const paths: string[] = [];
  outsideCode(text, (part) => {
    const prose = part.replace(/(`+)[\s\S]*?\1/g, " ");
    for (const match of prose.matchAll(/(?:^|\s)@([^\s`@]+)/g)) {
      const path = (match[1] as string).replace(/[.,;:!?)\]]+$/, "");
      if (path) paths.push(path);
    }
    return part;
  });
  return paths;
}

/** `text` with `change` applied to what lies outside its fenced code blocks. */
function outsideCode(text: string, change: (part: string) => string): string {
  return text
    .split(/(^(?:```|~~~)[^\n]*\n[\s\S]*?^(?:```|~~~)[ \t]*$)/m)
    .map((part, index) => (index % 2 === 0 ? change(part) : part))
    .join("");
}

function firstExisting(files: string[]): string | undefined {
  return files.find(isFile);
}

// A file as the file tools found it or left it: its bytes kept once, by their SHA-256, in a
// directory beside the session (content-addressed: the same content is stored once however
// often it is saved), with its mode; or its absence. Links are kept as links, never followed.

import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { SNAPSHOT_FILE_CAP } from "./shadow-repo.js";

/** What was at a path: nothing, a file (its blob and permission bits), a link, or too big to keep. */
export type FileState =
  | { kind: "absent" }
  | { kind: "file"; blob: string; mode: number }
  | { kind: "link"; target: string }
  | { kind: "too_big"; hash: string };

export function hashOf(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The state of `path` now, compared by content: a file's hash stands in for its blob. */
export function currentState(path: string): FileState {
  const stat = lstatOrNull(path);
  if (!stat) return { kind: "absent" };
  if (stat.isSymbolicLink()) return { kind: "link", target: readlinkSync(path) };
  const bytes = readFileSync(path);
  return { kind: "file", blob: hashOf(bytes), mode: stat.mode & 0o7777 };
}

/** Saves `path`'s content in `store` (once per content) and returns its state. */
export function saveState(path: string, store: string): FileState {
  const stat = lstatOrNull(path);
  if (!stat) return { kind: "absent" };
  if (stat.isSymbolicLink()) return { kind: "link", target: readlinkSync(path) };
  if (!stat.isFile()) return { kind: "absent" };
  const bytes = readFileSync(path);
  const blob = hashOf(bytes);
  if (stat.size > SNAPSHOT_FILE_CAP) return { kind: "too_big", hash: blob };
  const stored = join(store, blob);
  if (!existsSync(stored)) {
    mkdirSync(store, { recursive: true, mode: 0o700 });
    // Written whole, then renamed: a killed run never leaves a cut-off blob under its hash.
    writeFileSync(`${stored}.part`, bytes, { mode: 0o600 });
    renameSync(`${stored}.part`, stored);
  }
  return { kind: "file", blob, mode: stat.mode & 0o7777 };
}

/** Two states are the same file: same content, same executable bits, same link target. */
export function sameState(a: FileState, b: FileState): boolean {
  if (a.kind === "absent" || b.kind === "absent") return a.kind === b.kind;
  if (a.kind === "link" || b.kind === "link")
    return a.kind === "link" && b.kind === "link" && a.target === b.target;
  const hash = (state: FileState) =>
    state.kind === "file" ? state.blob : (state as { hash: string }).hash;
  const exec = (state: FileState) => (state.kind === "file" ? state.mode & 0o111 : -1);
  if (hash(a) !== hash(b)) return false;
  return exec(a) === -1 || exec(b) === -1 || exec(a) === exec(b);
}

/** Puts `bytes` (or a link, or nothing) at `path`, creating its directories as needed. */
export function writeState(
  path: string,
  target:
    | { kind: "absent" }
    | { kind: "link"; target: string }
    | { kind: "file"; bytes: Buffer; mode: number },
): void {
  const existing = lstatOrNull(path);
  if (target.kind === "absent") {
    if (existing) rmSync(path, { force: true, recursive: existing.isDirectory() });
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  // A link or a directory in the way is replaced; a link is never written through.
  if (existing && (existing.isSymbolicLink() || existing.isDirectory() || target.kind === "link")) {
    rmSync(path, { force: true, recursive: existing.isDirectory() });
  }
  if (target.kind === "link") {
    symlinkSync(target.target, path);
    return;
  }
  // Written in place: a restore cut off halfway is done again from its journal (restore.ts).
  writeFileSync(path, target.bytes);
  chmodSync(path, target.mode);
}

/** The bytes of a saved blob. */
export function readBlob(store: string, blob: string): Buffer {
  return readFileSync(join(store, blob));
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

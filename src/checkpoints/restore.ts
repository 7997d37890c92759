// Writes a restore plan to disk. The plan is written to a journal first and removed once every
// file is back, so a rewind killed halfway (kill -9, a power cut) is finished at the next start:
// each step puts a whole file in place by rename, and doing a step twice does no harm.

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { readBlob, writeState } from "./file-state.js";
import type { CheckpointData } from "./recorder.js";
import type { RewindRecord } from "./records.js";
import type { RestoreStep } from "./restore-plan.js";

/** What a rewind in progress must still do: its steps, and the record that says it was done. */
export interface RestoreJournal {
  steps: RestoreStep[];
  rewind: RewindRecord;
}

export function journalPath(sessionDirectory: string): string {
  return join(sessionDirectory, "checkpoints", "restore-journal.json");
}

export function readJournal(sessionDirectory: string): RestoreJournal | null {
  const path = journalPath(sessionDirectory);
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as RestoreJournal;
  } catch {
    // Cut off while it was written: nothing had been restored yet.
    rmSync(path, { force: true });
    return null;
  }
}

export function writeJournal(sessionDirectory: string, journal: RestoreJournal): void {
  const path = journalPath(sessionDirectory);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.part`, JSON.stringify(journal));
  renameSync(`${path}.part`, path);
}

export function removeJournal(sessionDirectory: string): void {
  rmSync(journalPath(sessionDirectory), { force: true });
}

/**
 * Applies each step; returns the paths written back and those removed. A directory a removal
 * leaves empty goes too, up to `top` (the session's directory) and never `top` itself.
 */
export function applySteps(
  steps: readonly RestoreStep[],
  data: CheckpointData,
  top: string,
): { restored: string[]; removed: string[] } {
  const restored: string[] = [];
  const removed: string[] = [];
  const fromGit = steps.flatMap(({ target }) => ("gitBlob" in target ? [target.gitBlob] : []));
  const gitBlobs =
    fromGit.length > 0 && data.shadow ? data.shadow.blobs(fromGit) : new Map<string, Buffer>();
  for (const { path, target } of steps) {
    if (target.kind === "absent") {
      writeState(path, target);
      removeEmptyParents(path, top);
      removed.push(path);
      continue;
    }
    if (target.kind === "link") writeState(path, target);
    else {
      const bytes =
        "gitBlob" in target ? gitBlobs.get(target.gitBlob) : readBlob(data.blobs, target.blob);
      if (!bytes) throw new Error(`the snapshot of ${path} is missing from the shadow repository`);
      writeState(path, { kind: "file", bytes, mode: target.mode });
    }
    restored.push(path);
  }
  return { restored, removed };
}

function removeEmptyParents(path: string, top: string): void {
  for (let directory = dirname(path); isInside(directory, top); directory = dirname(directory)) {
    try {
      if (readdirSync(directory).length > 0) return;
      rmdirSync(directory);
    } catch {
      return;
    }
  }
}

function isInside(path: string, top: string): boolean {
  const name = relative(top, path);
  return name !== "" && !name.startsWith("..") && !isAbsolute(name);
}

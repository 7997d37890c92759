// What a rewind of the code to before checkpoint N would write, worked out before anything is
// written: each path that changed since, back to how it was then, unless it changed again after
// agentloop left it (an editor, the person, another program), which is left alone and named.
// Inside a git work tree the snapshots decide, bash's changes included; elsewhere (and for
// ignored files or those outside the work tree) the file tools' saved files do.

import { isAbsolute, join, relative } from "node:path";
import { currentState, type FileState, sameState } from "./file-state.js";
import type { CheckpointData } from "./recorder.js";
import type { CheckpointLog } from "./records.js";
import type { ShadowRepo, TreeEntry } from "./shadow-repo.js";

/** Where a file's old bytes come from: the shadow repository or the file tools' blobs. */
export type RestoreTarget =
  | { kind: "absent" }
  | { kind: "link"; target: string }
  | { kind: "file"; mode: number; gitBlob: string }
  | { kind: "file"; mode: number; blob: string };

export interface RestoreStep {
  /** Absolute. */
  path: string;
  target: RestoreTarget;
}

export interface RestorePlan {
  steps: RestoreStep[];
  /** Paths that changed after agentloop left them, with why they are left alone. */
  leftAlone: { path: string; reason: string }[];
  /** False outside a git work tree: bash's changes could not be tracked. */
  bashTracked: boolean;
  /** Said once when the plan could not tell agentloop's changes from later ones. */
  caveat: string | null;
}

const CHANGED_SINCE = "changed since agentloop left it";
const PRUNED = "its snapshot is gone: git gc pruned the repository's copy of it";
const SUBMODULE = "160000";

/** `now` is the snapshot the rewind took just before (null outside git). */
export function planRestore(
  log: CheckpointLog,
  number: number,
  data: CheckpointData,
  now: string | null,
  force: boolean,
): RestorePlan {
  const checkpoint = log.checkpoints.find((candidate) => candidate.number === number);
  if (!checkpoint) throw new Error(`no checkpoint ${number}`);
  const plan: RestorePlan = { steps: [], leftAlone: [], bashTracked: false, caveat: null };
  const keep = (path: string, reason: string) => {
    if (force) return false;
    plan.leftAlone.push({ path, reason });
    return true;
  };
  const covered = new Set<string>();
  const shadow = data.shadow;
  if (shadow && checkpoint.tree !== null && now !== null) {
    plan.bashTracked = true;
    const then = shadow.files(checkpoint.tree);
    const current = shadow.files(now);
    const agent = agentChanges(log, number, shadow, now, current);
    if (agent.unfinished.size > 0) {
      plan.caveat = "The prompt did not finish, so later changes could not be told apart.";
    }
    for (const name of [...then.keys(), ...current.keys(), ...agent.entries.keys()])
      covered.add(name);
    const gone = shadow.missing(
      [...agent.entries.keys()].flatMap((name) => then.get(name)?.blob ?? []),
    );
    for (const [name, left] of agent.entries) {
      const path = join(shadow.root, name);
      const want = then.get(name);
      // A repository inside the work tree is snapshot as its commit only: it is not restored.
      if (want?.mode === SUBMODULE || current.get(name)?.mode === SUBMODULE) continue;
      if (sameEntry(want, current.get(name))) continue;
      const leftByAgent = !agent.unfinished.has(name);
      if (leftByAgent && !sameEntry(left, current.get(name)) && keep(path, CHANGED_SINCE)) continue;
      if (want && gone.has(want.blob)) {
        plan.leftAlone.push({ path, reason: PRUNED });
        continue;
      }
      plan.steps.push({ path, target: gitTarget(path, want, shadow.blob) });
    }
  }
  const latestLeft = new Map<string, FileState>();
  for (const record of log.left)
    for (const [path, state] of Object.entries(record.files)) latestLeft.set(path, state);
  const planned = new Set<string>();
  for (const saved of log.saved) {
    if (saved.checkpoint < number || planned.has(saved.path)) continue;
    planned.add(saved.path);
    if (shadow && plan.bashTracked && covered.has(insideRoot(shadow.root, saved.path))) continue;
    const present = currentState(saved.path);
    if (sameState(saved.before, present)) continue;
    const left = latestLeft.get(saved.path);
    if (!left && keep(saved.path, "how agentloop left it is not known")) continue;
    if (left && !sameState(left, present) && keep(saved.path, CHANGED_SINCE)) continue;
    const before = saved.before;
    if (before.kind === "too_big") {
      plan.leftAlone.push({ path: saved.path, reason: "it was too big to keep" });
      continue;
    }
    plan.steps.push({ path: saved.path, target: before });
  }
  return plan;
}

/**
 * What agentloop changed in the work tree from checkpoint `number` on, each path as agentloop
 * last left it: the span of each later checkpoint, prompt or rewind alike, runs from its
 * snapshot to how it left things, so a change made between two spans (by the person, an
 * editor) is not agentloop's, and a rewind counts only the files it wrote. A span that did not
 * finish runs to the next checkpoint, or to now for the last (`unfinished`: its changes cannot
 * be told from later ones).
 */
function agentChanges(
  log: CheckpointLog,
  number: number,
  shadow: ShadowRepo,
  now: string,
  current: Map<string, TreeEntry>,
): { entries: Map<string, TreeEntry | undefined>; unfinished: Set<string> } {
  const later = log.checkpoints.filter(
    (candidate) => candidate.number >= number && candidate.tree !== null,
  );
  const spans = later.map((start, index) => {
    const left = log.left.findLast(
      (record) => record.checkpoint === start.number && record.tree !== null,
    )?.tree;
    const end = left ?? later[index + 1]?.tree ?? now;
    return { from: start.tree as string, to: end as string, unfinished: !left && end === now };
  });
  const entries = new Map<string, TreeEntry | undefined>();
  const unfinished = new Set<string>();
  // The latest span that changed a path says how agentloop left it: read from the last back.
  for (const span of spans.reverse()) {
    const fresh = shadow.changed(span.from, span.to).filter((name) => !entries.has(name));
    if (fresh.length === 0) continue;
    const files = span.to === now ? current : shadow.files(span.to);
    for (const name of fresh) {
      entries.set(name, files.get(name));
      if (span.unfinished) unfinished.add(name);
    }
  }
  return { entries, unfinished };
}

function sameEntry(a: TreeEntry | undefined, b: TreeEntry | undefined): boolean {
  return a?.blob === b?.blob && a?.mode === b?.mode;
}

/** The path relative to the root, or "" when it is outside the work tree. */
function insideRoot(root: string, path: string): string {
  const name = relative(root, path);
  return name.startsWith("..") || isAbsolute(name) ? "" : name;
}

function gitTarget(
  path: string,
  entry: TreeEntry | undefined,
  blob: (id: string) => Buffer,
): RestoreTarget {
  if (!entry) return { kind: "absent" };
  if (entry.mode === "120000") return { kind: "link", target: blob(entry.blob).toString() };
  const executable = entry.mode === "100755";
  const present = currentState(path);
  // Git keeps the executable bit only: the other permission bits stay as the file has them.
  const base = present.kind === "file" ? present.mode : 0o644;
  const mode = executable ? base | ((base & 0o444) >> 2) : base & ~0o111;
  return { kind: "file", mode, gitBlob: entry.blob };
}

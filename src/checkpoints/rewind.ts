// One rewind of a session, the same for `agentloop rewind` and the REPL's /rewind: a checkpoint
// first (so the rewind can itself be undone), then the code put back as it was before prompt N
// (never over a file changed since agentloop left it, unless forced), then a record in the
// session file, which takes the conversation back too when asked.

import { relative } from "node:path";
import { ConfigError } from "../core/errors.js";
import type { Message } from "../core/messages.js";
import { plural } from "../core/wording.js";
import { readSession } from "../session/session-file.js";
import { currentState, type FileState } from "./file-state.js";
import { historyAfterRewinds } from "./history.js";
import { type CheckpointData, checkpointData, createRecorder } from "./recorder.js";
import {
  appendRecord,
  type CheckpointLog,
  checkpointEvent,
  checkpointLog,
  leftEvent,
  type RewindRecord,
  rewindEvent,
  savedEvent,
  scopeOf,
} from "./records.js";
import { applySteps, readJournal, removeJournal, writeJournal } from "./restore.js";
import { planRestore, type RestorePlan } from "./restore-plan.js";

export interface RewindRequest {
  sessionFile: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The checkpoint to go back to: 1 is before the first prompt. */
  number: number;
  code: boolean;
  conversation: boolean;
  force: boolean;
}

export interface RewindResult {
  number: number;
  restored: string[];
  removed: string[];
  leftAlone: RestorePlan["leftAlone"];
  bashTracked: boolean;
  caveat: string | null;
  /** The checkpoint taken first: rewinding to it undoes this rewind. */
  undo: number;
  /** The conversation as it goes on, when it was rewound. */
  history: Message[] | null;
}

/** The session's own directory, beside its file. */
export function sessionDirectoryOf(sessionFile: string): string {
  return sessionFile.replace(/\.jsonl$/, "");
}

/** The session's checkpoint records, with a rewind killed halfway finished first. */
export function readCheckpointLog(
  sessionFile: string,
  cwd: string,
  data: () => CheckpointData,
): { log: CheckpointLog; finished: string | null } {
  const finished = finishInterruptedRewind(sessionFile, cwd, data);
  return { log: checkpointLog(readSession(sessionFile).entries), finished };
}

/** Finds the checkpoint or says in one sentence why not. */
export function checkpointNamed(log: CheckpointLog, number: number) {
  const checkpoint = log.checkpoints.find((candidate) => candidate.number === number);
  if (checkpoint) return checkpoint;
  const last = log.checkpoints.at(-1)?.number;
  throw new ConfigError(
    last === undefined
      ? "This session has no checkpoints yet: there is nothing to rewind."
      : `There is no checkpoint ${number}: this session has 1 to ${last} (agentloop rewind --list).`,
  );
}

/** Works out what rewinding the code would write, without writing it (for /rewind's preview). */
export function previewRewind(request: RewindRequest): RestorePlan {
  const data = checkpointData(sessionDirectoryOf(request.sessionFile), request.cwd, request.env);
  const { log } = readCheckpointLog(request.sessionFile, request.cwd, () => data);
  checkpointNamed(log, request.number);
  const now = data.shadow ? data.shadow.snapshot() : null;
  return planRestore(log, request.number, data, now, request.force);
}

export function rewindSession(request: RewindRequest): RewindResult {
  const directory = sessionDirectoryOf(request.sessionFile);
  const data = checkpointData(directory, request.cwd, request.env);
  const { log } = readCheckpointLog(request.sessionFile, request.cwd, () => data);
  checkpointNamed(log, request.number);
  const record = (event: Parameters<typeof appendRecord>[1]) =>
    appendRecord(request.sessionFile, event);

  const recorder = createRecorder(data, request.cwd);
  const undo = Math.max(...log.checkpoints.map((checkpoint) => checkpoint.number)) + 1;
  const taken = recorder.checkpoint(undo, `before rewind to ${request.number}`);
  record(checkpointEvent(taken));
  const plan = request.code
    ? planRestore(log, request.number, data, taken.tree, request.force)
    : { steps: [], leftAlone: [], bashTracked: data.shadow !== null, caveat: null };
  // What is about to be overwritten is kept first, so that this rewind can be undone.
  for (const step of plan.steps) {
    const saved = recorder.saveBefore(step.path);
    if (saved) record(savedEvent(saved, relative(request.cwd, step.path)));
  }
  const rewind: RewindRecord = {
    to: request.number,
    code: request.code,
    conversation: request.conversation,
    undo,
  };
  writeJournal(directory, { steps: plan.steps, rewind });
  // @step checkpoints.rewind: A rewind puts the files back as they were before the chosen prompt.
  const { restored, removed } = applySteps(plan.steps, data, data.shadow?.root ?? request.cwd);
  const left = recorder.leave();
  if (left) record(leftEvent(left));
  record(rewindEvent(rewind, rewindLine(rewind)));
  removeJournal(directory);
  const history = request.conversation
    ? historyAfterRewinds(readSession(request.sessionFile).entries)
    : null;
  return {
    number: request.number,
    restored,
    removed,
    leftAlone: plan.leftAlone,
    bashTracked: plan.bashTracked,
    caveat: plan.caveat,
    undo,
    history,
  };
}

function rewindLine(rewind: RewindRecord): string {
  const what = scopeOf(rewind.code, rewind.conversation);
  return `rewound the ${what} to before prompt ${rewind.to} (undo: rewind ${rewind.undo})`;
}

/**
 * A rewind killed while it restored left its journal: its steps are done again and its record
 * written. Returns a sentence saying so, or null when there was none.
 */
function finishInterruptedRewind(
  sessionFile: string,
  cwd: string,
  data: () => CheckpointData,
): string | null {
  const directory = sessionDirectoryOf(sessionFile);
  const journal = readJournal(directory);
  if (!journal) return null;
  const opened = data();
  const { restored, removed } = applySteps(journal.steps, opened, opened.shadow?.root ?? cwd);
  // How the rewind left things, as it would have said had it not been stopped.
  const files: Record<string, FileState> = {};
  for (const { path } of journal.steps) files[path] = currentState(path);
  const tree = opened.shadow ? opened.shadow.snapshot() : null;
  const changed = journal.steps.map(({ path }) => relative(cwd, path));
  appendRecord(sessionFile, leftEvent({ checkpoint: journal.rewind.undo, tree, files, changed }));
  const { rewinds } = checkpointLog(readSession(sessionFile).entries);
  if (!rewinds.some((rewind) => rewind.undo === journal.rewind.undo)) {
    appendRecord(
      sessionFile,
      rewindEvent(
        journal.rewind,
        `${rewindLine(journal.rewind)}, finished after it was interrupted`,
      ),
    );
  }
  removeJournal(directory);
  const putBack = plural(restored.length + removed.length, "file");
  return `A rewind to before prompt ${journal.rewind.to} was interrupted; it is now finished (${putBack} put back).`;
}

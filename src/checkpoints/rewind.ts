// One rewind of a session, the same for `agentloop rewind` and the REPL's /rewind: a checkpoint
// first (so the rewind can itself be undone), then the code put back as it was before prompt N
// (never over a file changed since agentloop left it, unless forced), then a record in the
// session file, which takes the conversation back too when asked.

import { relative } from "node:path";
import type { Message } from "../core/messages.js";
import { plural } from "../core/wording.js";
import { readSession } from "../session/session-file.js";
import { beforeWhat, checkpointNamed, nameOf, nextName } from "./checkpoint-names.js";
import { type CommandPlace, scopeOf } from "./command-place.js";
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
} from "./records.js";
import { applySteps, readJournal, removeJournal, writeJournal } from "./restore.js";
import { planRestore, type RestorePlan } from "./restore-plan.js";

export interface RewindRequest {
  sessionFile: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The checkpoint to go back to, by its name: "1" is before the first prompt, "r1" the first rewind. */
  name: string;
  code: boolean;
  conversation: boolean;
  force: boolean;
  /** Where a checkpoint that does not exist is said to be listed. */
  place: CommandPlace;
}

export interface RewindResult {
  name: string;
  code: boolean;
  conversation: boolean;
  restored: string[];
  removed: string[];
  leftAlone: RestorePlan["leftAlone"];
  bashTracked: boolean;
  caveat: string | null;
  /** The name of the checkpoint taken first: rewinding to it undoes this rewind. */
  undo: string;
  /** That checkpoint's running number in the records. */
  taken: number;
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

/** Works out what rewinding the code would write, without writing it (for /rewind's preview). */
export function previewRewind(request: RewindRequest): RestorePlan {
  const data = checkpointData(sessionDirectoryOf(request.sessionFile), request.cwd, request.env);
  const { log } = readCheckpointLog(request.sessionFile, request.cwd, () => data);
  const { number } = checkpointNamed(log, request.name, request.place);
  const now = data.shadow ? data.shadow.snapshot() : null;
  return planRestore(log, number, data, now, request.force);
}

export function rewindSession(request: RewindRequest): RewindResult {
  const directory = sessionDirectoryOf(request.sessionFile);
  const data = checkpointData(directory, request.cwd, request.env);
  const { log } = readCheckpointLog(request.sessionFile, request.cwd, () => data);
  const { number } = checkpointNamed(log, request.name, request.place);
  const record = (event: Parameters<typeof appendRecord>[1]) =>
    appendRecord(request.sessionFile, event);

  const recorder = createRecorder(data, request.cwd);
  const undo = Math.max(...log.checkpoints.map((checkpoint) => checkpoint.number)) + 1;
  const undoName = nextName(log, "rewind");
  const taken = recorder.checkpoint(undo, `rewind to before ${beforeWhat(request.name)}`);
  // @step checkpoints.rewind_checkpoint: A rewind first takes a checkpoint, so that it can be undone.
  record(checkpointEvent(taken, "rewind", undoName));
  const plan = request.code
    ? planRestore(log, number, data, taken.tree, request.force)
    : { steps: [], leftAlone: [], bashTracked: data.shadow !== null, caveat: null };
  // What is about to be overwritten is kept first, so that this rewind can be undone.
  for (const step of plan.steps) {
    // @step checkpoints.rewind_saved: A file the rewind is about to overwrite is kept as it is.
    const saved = recorder.saveBefore(step.path);
    if (saved) record(savedEvent(saved, "rewind", relative(request.cwd, step.path)));
  }
  const rewind: RewindRecord = {
    to: number,
    code: request.code,
    conversation: request.conversation,
    undo,
  };
  writeJournal(directory, { steps: plan.steps, rewind });
  // @step checkpoints.rewind: A rewind puts the files back as they were before the chosen prompt.
  const { restored, removed } = applySteps(plan.steps, data, data.shadow?.root ?? request.cwd);
  // @step checkpoints.rewind_left: How the rewind left the files is recorded, as a prompt's end is.
  const left = recorder.leave();
  if (left) record(leftEvent(left, "rewind"));
  record(rewindEvent(rewind, rewindLine(request, request.name, undoName)));
  removeJournal(directory);
  const history = request.conversation
    ? historyAfterRewinds(readSession(request.sessionFile).entries)
    : null;
  return {
    name: request.name,
    code: request.code,
    conversation: request.conversation,
    restored,
    removed,
    leftAlone: plan.leftAlone,
    bashTracked: plan.bashTracked,
    caveat: plan.caveat,
    undo: undoName,
    taken: undo,
    history,
  };
}

/** `to`: the name of the checkpoint it went back to; `undo`: of the one it took first. */
function rewindLine(
  scope: { code: boolean; conversation: boolean },
  to: string,
  undo: string,
): string {
  return `rewound the ${scopeOf(scope)} to before ${beforeWhat(to)} (its own checkpoint: ${undo})`;
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
  const left = { checkpoint: journal.rewind.undo, tree, files, changed };
  appendRecord(sessionFile, leftEvent(left, "rewind"));
  const log = checkpointLog(readSession(sessionFile).entries);
  const to = nameOf(log, journal.rewind.to);
  if (!log.rewinds.some((rewind) => rewind.undo === journal.rewind.undo)) {
    const line = rewindLine(journal.rewind, to, nameOf(log, journal.rewind.undo));
    appendRecord(
      sessionFile,
      rewindEvent(journal.rewind, `${line}, finished after it was interrupted`),
    );
  }
  removeJournal(directory);
  const putBack = plural(restored.length + removed.length, "file");
  return `A rewind to before ${beforeWhat(to)} was interrupted; it is now finished (${putBack} put back).`;
}

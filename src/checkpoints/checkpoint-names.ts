// How a person names a checkpoint: by the prompt it was taken before ("3", their third prompt)
// or by the rewind it was taken before ("r1", the session's first rewind). The records keep one
// running number for both; counting the two kinds apart keeps a rewind from shifting the
// prompts' numbers, so "prompt 3" is always the third thing the person asked.

import { ConfigError } from "../core/errors.js";
import type { CommandPlace } from "./command-place.js";
import type { CheckpointKind, CheckpointLog } from "./records.js";

const REWIND_NAME = /^r([1-9]\d*)$/;
const PROMPT_NAME = /^[1-9]\d*$/;

/** Whether `word` reads as a checkpoint's name ("3", "r1"), whether or not the session has it. */
export function isCheckpointName(word: string): boolean {
  return PROMPT_NAME.test(word) || REWIND_NAME.test(word);
}

/** The name of checkpoint `number` (the records' running number). */
export function nameOf(log: CheckpointLog, number: number): string {
  const checkpoint = log.checkpoints.find((candidate) => candidate.number === number);
  if (!checkpoint) return String(number);
  const ordinal = log.checkpoints
    .filter((candidate) => candidate.kind === checkpoint.kind)
    .findIndex((candidate) => candidate.number === number);
  return nameFor(checkpoint.kind, ordinal + 1);
}

/** The name the next checkpoint of `kind` will have. */
export function nextName(log: CheckpointLog, kind: CheckpointKind): string {
  return nameFor(kind, log.checkpoints.filter((candidate) => candidate.kind === kind).length + 1);
}

/** The running number of the checkpoint called `name`, or null when the session has none. */
export function numberNamed(log: CheckpointLog, name: string): number | null {
  const kind: CheckpointKind = REWIND_NAME.test(name) ? "rewind" : "prompt";
  const ordinal = Number(kind === "rewind" ? name.slice(1) : name);
  const ofKind = log.checkpoints.filter((candidate) => candidate.kind === kind);
  return ofKind[ordinal - 1]?.number ?? null;
}

/** What the checkpoint called `name` was taken before: "prompt 3", "rewind r1". */
export function beforeWhat(name: string): string {
  return `${REWIND_NAME.test(name) ? "rewind" : "prompt"} ${name}`;
}

/** The names the session has, in words: "prompts 1 to 3 and rewind r1". */
export function namesInWords(log: CheckpointLog): string {
  const range = (kind: CheckpointKind, noun: string) => {
    const count = log.checkpoints.filter((candidate) => candidate.kind === kind).length;
    if (count === 0) return null;
    const first = nameFor(kind, 1);
    return count === 1 ? `${noun} ${first}` : `${noun}s ${first} to ${nameFor(kind, count)}`;
  };
  return [range("prompt", "prompt"), range("rewind", "rewind")]
    .filter((part) => part !== null)
    .join(" and ");
}

/** The checkpoint called `name` ("3", "r1"), or one sentence saying which the session has. */
export function checkpointNamed(log: CheckpointLog, name: string, place: CommandPlace) {
  const number = numberNamed(log, name);
  const checkpoint = log.checkpoints.find((candidate) => candidate.number === number);
  if (checkpoint) return checkpoint;
  throw new ConfigError(
    log.checkpoints.length === 0
      ? "This session has no checkpoints yet: there is nothing to rewind."
      : `There is no ${beforeWhat(name)}: this session has ${namesInWords(log)} (${place.list} lists them).`,
  );
}

function nameFor(kind: CheckpointKind, ordinal: number): string {
  return kind === "rewind" ? `r${ordinal}` : String(ordinal);
}

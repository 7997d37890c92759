// The words of checkpoints and rewinds, the same at the REPL and on the command line but for
// the commands they name, each in the syntax of where it is printed: the list, what a rewind
// would write, and what it did.

import { relative } from "node:path";
import { beforeWhat, nameOf } from "./checkpoint-names.js";
import { type CommandPlace, scopeOf } from "./command-place.js";
import type { CheckpointLog } from "./records.js";
import type { RestorePlan } from "./restore-plan.js";
import type { RewindResult } from "./rewind.js";

export const NOT_TRACKED =
  "This directory is not in a git work tree: bash's changes are not tracked, only those of the file tools (write, edit) are restored.";

/** One line per checkpoint: its name, time, the prompt's first line, the files changed after it. */
export function checkpointLines(log: CheckpointLog): string[] {
  if (log.checkpoints.length === 0) return ["This session has no checkpoints yet."];
  return log.checkpoints.map((checkpoint) => {
    const left = log.left.findLast((record) => record.checkpoint === checkpoint.number);
    const files = left ? filesNote(left.changed) : "did not finish";
    const time = checkpoint.at.slice(0, 16).replace("T", " ");
    const name = nameOf(log, checkpoint.number);
    return `${name.padStart(3)}  ${time}  ${checkpoint.prompt}  (${files})`;
  });
}

/** `changed` is relative to the session's directory already. */
function filesNote(changed: readonly string[]): string {
  if (changed.length === 0) return "no files changed";
  const shown = changed.slice(0, 3);
  const more = changed.length > 3 ? `, and ${changed.length - 3} more` : "";
  return `${changed.length} ${changed.length === 1 ? "file" : "files"}: ${shown.join(", ")}${more}`;
}

/** What a rewind of the code would do, before it does it. */
export function planLines(plan: RestorePlan, cwd: string): string[] {
  const lines = plan.steps.map(
    (step) =>
      `  ${step.target.kind === "absent" ? "remove " : "restore"}  ${relative(cwd, step.path)}`,
  );
  if (lines.length === 0) lines.push("  no file to restore");
  for (const kept of plan.leftAlone)
    lines.push(`  keep     ${relative(cwd, kept.path)} (${kept.reason})`);
  if (!plan.bashTracked) lines.push(NOT_TRACKED);
  if (plan.caveat) lines.push(plan.caveat);
  return lines;
}

/** What a rewind did, its hints in the syntax of `place`. */
export function resultLines(result: RewindResult, cwd: string, place: CommandPlace): string[] {
  const scope = { code: result.code, conversation: result.conversation };
  const lines = [`Rewound the ${scopeOf(scope)} to before ${beforeWhat(result.name)}.`];
  for (const path of result.restored) lines.push(`  restored    ${relative(cwd, path)}`);
  for (const path of result.removed) lines.push(`  removed     ${relative(cwd, path)}`);
  const forced = place.rewind(result.name, { ...scope, force: true });
  for (const kept of result.leftAlone)
    lines.push(
      `  left alone  ${relative(cwd, kept.path)} (${kept.reason}; ${forced} overwrites it)`,
    );
  if (!result.bashTracked && result.code) lines.push(NOT_TRACKED);
  if (result.caveat) lines.push(result.caveat);
  lines.push(`To undo this rewind: ${place.rewind(result.undo, scope)}.`);
  return lines;
}

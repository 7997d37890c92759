// The words of checkpoints and rewinds, the same at the REPL and on the command line: the list,
// what a rewind would write, and what it did.

import { relative } from "node:path";
import type { CheckpointLog } from "./records.js";
import type { RestorePlan } from "./restore-plan.js";
import type { RewindResult } from "./rewind.js";

export const NOT_TRACKED =
  "This directory is not in a git work tree: bash's changes are not tracked, only those of the file tools (write, edit) are restored.";

/** One line per checkpoint: number, time, the prompt's first line, the files changed after it. */
export function checkpointLines(log: CheckpointLog): string[] {
  if (log.checkpoints.length === 0) return ["This session has no checkpoints yet."];
  return log.checkpoints.map((checkpoint) => {
    const left = log.left.findLast((record) => record.checkpoint === checkpoint.number);
    const files = left ? filesNote(left.changed) : "did not finish";
    const time = checkpoint.at.slice(0, 16).replace("T", " ");
    return `${String(checkpoint.number).padStart(3)}  ${time}  ${checkpoint.prompt}  (${files})`;
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

/** What a rewind did. */
export function resultLines(result: RewindResult, scope: string, cwd: string): string[] {
  const lines = [`Rewound the ${scope} to before prompt ${result.number}.`];
  for (const path of result.restored) lines.push(`  restored    ${relative(cwd, path)}`);
  for (const path of result.removed) lines.push(`  removed     ${relative(cwd, path)}`);
  for (const kept of result.leftAlone)
    lines.push(`  left alone  ${relative(cwd, kept.path)} (${kept.reason}; --force overwrites it)`);
  if (!result.bashTracked && scope !== "conversation") lines.push(NOT_TRACKED);
  if (result.caveat) lines.push(result.caveat);
  lines.push(`To undo this rewind: rewind ${result.undo}.`);
  return lines;
}

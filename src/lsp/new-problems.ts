// Which of a file's diagnostics after an edit are new, and how they are told. A problem is the
// same problem before and after when its severity, code and message are: its line is left out,
// since an edit above it moves it. The wording says the edit was applied and the code has a
// problem, never that the edit failed: models read an imperative "fix these errors" as a
// failed write and write it again (sst/opencode PR #10252).

import type { Diagnostic } from "./language-server.js";

/** At most this many problems are listed, and each message at most this long. */
const MOST_LISTED = 20;
const LONGEST_MESSAGE = 400;

/** The problems in `after` at least as severe as `severity` that `before` did not have. */
export function newProblems(
  before: readonly Diagnostic[],
  after: readonly Diagnostic[],
  severity: number,
): Diagnostic[] {
  const seen = new Map<string, number>();
  for (const item of before) seen.set(keyOf(item), (seen.get(keyOf(item)) ?? 0) + 1);
  return after.filter((item) => {
    if (item.severity > severity) return false;
    const left = seen.get(keyOf(item)) ?? 0;
    if (left === 0) return true;
    seen.set(keyOf(item), left - 1);
    return false;
  });
}

function keyOf(item: Diagnostic): string {
  return `${item.severity}\0${item.code ?? ""}\0${item.message}`;
}

/** "1 new error", "3 new problems": errors when only errors are told. */
export function countOf(count: number, severity: number): string {
  const noun = severity === 1 ? "error" : "problem";
  return `${count} new ${noun}${count === 1 ? "" : "s"}`;
}

/** What the model reads after an edit's result: the problems, `file:line:col message` each. */
export function problemsText(
  server: string,
  file: string,
  problems: readonly Diagnostic[],
  severity: number,
): string {
  const what = severity === 1 ? "errors" : "problems";
  const lines = problems.slice(0, MOST_LISTED).map((item) => {
    const message = item.message.replace(/\s*\n\s*/g, " ");
    const cut =
      message.length > LONGEST_MESSAGE ? `${message.slice(0, LONGEST_MESSAGE)}...` : message;
    return `${file}:${item.line}:${item.column} ${cut}`;
  });
  const more = problems.length - lines.length;
  if (more > 0) lines.push(`(and ${more} more)`);
  return [
    `The edit was applied. The language server (${server}) reports new ${what} in this file:`,
    ...lines,
  ].join("\n");
}

// Decides allow / ask / deny for one bash command: parse it, look through wrappers, then judge
// every command it runs. The worst part decides, and the reason names that part.
//
// Order for one part: a deny rule, the built-in deny list, an ask rule, an allow rule, the
// built-in ask list, read-only programs; anything else may write and needs a person (or the
// sandbox, in auto mode).

import { homedir } from "node:os";
import { resolve } from "node:path";
import { parseShell } from "../shell/parse.js";
import { isHarmlessSink, type SimpleCommand, writtenTarget } from "../shell/syntax.js";
import { type DangerContext, findDanger, quoted } from "./dangerous.js";
import { writesGitState } from "./git-state.js";
import { type Place, placeOf } from "./paths.js";
import { isReadOnlyProgram } from "./read-only.js";
import { matchingRule, type PermissionRules, suggestRule } from "./rules.js";
import { type CommandPart, lookThrough, programName } from "./wrappers.js";

/**
 * `allow`: proven read-only, or allowed by a rule.
 * `ask`: needs a person's yes. `flagged` marks a rule or the built-in list asking (auto mode
 * refuses those); otherwise the command merely may write, which the sandbox contains.
 * `rules`: the allow rules that "always" would remember.
 */
export type Decision =
  | { verdict: "allow"; reason: string }
  | { verdict: "ask"; reason: string; flagged: boolean; rules: string[] }
  | { verdict: "deny"; reason: string };

export interface ClassifyContext {
  workspace: string;
  rules: PermissionRules;
  /** Defaults to the user's home directory. */
  home?: string;
  /** Directories outside the workspace that commands may change (the sandbox's temp dir). */
  scratch?: string[];
  /**
   * Nothing contains what a read-only command runs (ask mode where the sandbox cannot start):
   * then git is never read-only, since even `git status` runs what a repository's config
   * names (core.fsmonitor, a pager, a diff driver).
   */
  gitUnsandboxed?: boolean;
}

type PartVerdict =
  | { kind: "allow"; reason: string; byRule: boolean }
  | { kind: "ask"; reason: string; flagged: boolean; rule: string | null }
  | { kind: "deny"; reason: string };

const SEVERITY = { allow: 0, unflagged: 1, flagged: 2, deny: 3 } as const;

/** Classifies a command. The shell parser must be initialised (`initShellParser()`). */
export function classifyCommand(command: string, context: ClassifyContext): Decision {
  const parsed = parseShell(command);
  if (parsed.kind === "unparsable") {
    return {
      verdict: "ask",
      reason: `cannot check this command: ${parsed.reason}`,
      flagged: false,
      rules: [],
    };
  }
  const { parts, hazards } = partsOf(parsed.commands);
  hazards.push(...parsed.hazards);
  const dangerContext = dangerContextFor(parts, context);
  const verdicts = parts.map((part) => judgePart(part, context, dangerContext));
  const hazard = hazards[0];
  if (hazard) {
    const reason = `${JSON.stringify(hazard.text)} ${hazard.why}`;
    verdicts.push({ kind: "ask", reason, flagged: false, rule: null });
  }
  return combine(verdicts);
}

/** True when the command provably changes nothing (no rules involved). */
export function isReadOnlyScript(command: string): boolean {
  const parsed = parseShell(command);
  if (parsed.kind === "unparsable" || parsed.hazards.length > 0) return false;
  const { parts, hazards } = partsOf(parsed.commands);
  return hazards.length === 0 && parts.every(isReadOnlyPart);
}

/**
 * The first git command in `command` that writes the repository's git state (`git commit`,
 * `sh -c "git add ."`), quoted as the reasons quote a command; null when there is none or the
 * command cannot be parsed (which is judged, and asked about, on its own).
 */
export function gitStateWriter(command: string): string | null {
  const parsed = parseShell(command);
  if (parsed.kind === "unparsable") return null;
  const part = partsOf(parsed.commands).parts.find(
    (each) =>
      programName(each.argv[0]) === "git" &&
      writesGitState(
        each.argv.slice(1).flatMap((word) => (word.value === null ? [] : [word.value])),
      ),
  );
  return part ? quoted(part) : null;
}

function partsOf(commands: SimpleCommand[]) {
  const looked = commands.map((command) => lookThrough(command));
  return { parts: looked.flatMap((l) => l.parts), hazards: looked.flatMap((l) => l.hazards) };
}

function judgePart(
  part: CommandPart,
  context: ClassifyContext,
  danger: DangerContext,
): PartVerdict {
  const text = quoted(part);
  const candidates = [part.argv, ...part.via];
  const denyRule = candidates.map((argv) => matchingRule(context.rules.deny, argv)).find(Boolean);
  if (denyRule) return { kind: "deny", reason: `${text} matches the deny rule "${denyRule}"` };
  const finding = findDanger(part, danger);
  if (finding?.kind === "deny") return { kind: "deny", reason: finding.reason };
  const rule = part.opaque ? null : suggestRule(part.argv);
  const askRule = candidates.map((argv) => matchingRule(context.rules.ask, argv)).find(Boolean);
  if (askRule) {
    // No "always" here: an ask rule outranks any allow rule it could write.
    const reason = `${text} matches the ask rule "${askRule}"`;
    return { kind: "ask", reason, flagged: true, rule: null };
  }
  const writes = writeProblem(part, danger);
  const allowRule = part.opaque ? undefined : matchingRule(context.rules.allow, part.argv);
  if (allowRule && !writes?.outside) {
    return { kind: "allow", reason: `${text} is allowed by the rule "${allowRule}"`, byRule: true };
  }
  if (finding) return { kind: "ask", reason: finding.reason, flagged: true, rule };
  if (part.opaque) {
    return {
      kind: "ask",
      reason: `cannot tell what ${text} runs: ${part.opaque}`,
      flagged: false,
      rule: null,
    };
  }
  if (writes) return { kind: "ask", reason: writes.reason, flagged: false, rule };
  if (isReadOnlyPart(part)) {
    if (!context.gitUnsandboxed || programName(part.argv[0]) !== "git") {
      return { kind: "allow", reason: `${text} is read-only`, byRule: false };
    }
    const reason = `${text} could run a command the repository's git config names, and there is no sandbox to run it in`;
    return { kind: "ask", reason, flagged: false, rule };
  }
  const why =
    part.argv[0]?.value === null
      ? `${text} runs a command whose name is only known when it runs`
      : part.reconfigured
        ? `${text} is run with ${part.reconfigured}, which changes what it does`
        : `${text} is not known to be read-only`;
  return { kind: "ask", reason: why, flagged: false, rule };
}

function isReadOnlyPart(part: CommandPart): boolean {
  if (part.opaque || part.reconfigured) return false;
  if (part.redirects.some((redirect) => writesFile(redirect))) return false;
  return part.argv.length === 0 || isReadOnlyProgram(part.argv);
}

function writesFile(redirect: CommandPart["redirects"][number]): boolean {
  const target = writtenTarget(redirect);
  return target !== null && !(target.value !== null && isHarmlessSink(target.value));
}

/** A redirection that writes a file: its reason, and whether it may land outside the workspace. */
function writeProblem(part: CommandPart, danger: DangerContext) {
  const written = part.redirects.filter(writesFile);
  const first = written[0];
  if (!first) return null;
  const cwds = part.cwd === undefined ? danger.cwds : [part.cwd];
  const places: Place[] = written.map((redirect) => {
    const target = writtenTarget(redirect);
    return target ? placeOf(target, cwds, danger) : "unknown";
  });
  const outside = places.some((place) => place === "outside" || place === "unknown");
  const where = outside ? "outside the workspace" : "to a file";
  const subject = part.argv.length > 0 ? quoted(part) : JSON.stringify(first.text);
  return { outside, reason: `${subject} writes ${where} (${first.text})` };
}

function combine(verdicts: PartVerdict[]): Decision {
  let worst: PartVerdict | undefined;
  for (const verdict of verdicts) {
    if (!worst || severity(verdict) > severity(worst)) worst = verdict;
  }
  if (!worst) return { verdict: "allow", reason: "the command runs nothing" };
  switch (worst.kind) {
    case "allow": {
      const byRule = verdicts.find((verdict) => verdict.kind === "allow" && verdict.byRule);
      const reason = byRule ?? (verdicts.length === 1 ? worst : undefined);
      return { verdict: "allow", reason: reason?.reason ?? "every command in it is read-only" };
    }
    case "ask": {
      const rules = verdicts.flatMap((v) => (v.kind === "ask" && v.rule ? [v.rule] : []));
      return {
        verdict: "ask",
        reason: worst.reason,
        flagged: worst.flagged,
        rules: [...new Set(rules)],
      };
    }
    case "deny":
      return { verdict: "deny", reason: worst.reason };
  }
}

function severity(verdict: PartVerdict): number {
  if (verdict.kind === "ask") return verdict.flagged ? SEVERITY.flagged : SEVERITY.unflagged;
  return SEVERITY[verdict.kind];
}

function dangerContextFor(parts: CommandPart[], context: ClassifyContext): DangerContext {
  const home = context.home ?? homedir();
  const workspace = resolve(context.workspace);
  const cwds: (string | null)[] = [workspace];
  for (const part of parts) {
    const name = programName(part.argv[0]);
    if (name === "pushd" || name === "popd") cwds.push(null);
    if (name !== "cd") continue;
    const target = part.argv[1];
    if (!target) cwds.push(home);
    else if (target.value === "-") cwds.push(null);
    else cwds.push(targetDirectory(placeTarget(target.value, home), workspace));
  }
  const downloads = parts.some((part) =>
    ["curl", "wget"].includes(programName(part.argv[0]) ?? ""),
  );
  return { workspace, home, scratch: context.scratch ?? [], cwds, downloads };
}

function placeTarget(value: string | null, home: string): string | null {
  if (value === null) return null;
  if (value === "~" || value.startsWith("~/")) return home + value.slice(1);
  return value.startsWith("~") ? null : value;
}

/** A `cd` target as a directory; relative ones that climb (`..`) are only known at run time,
 * since earlier `cd`s may have moved the shell anywhere. */
function targetDirectory(value: string | null, workspace: string): string | null {
  if (value === null) return null;
  if (value.startsWith("/")) return resolve(value);
  return value.split("/").includes("..") ? null : resolve(workspace, value);
}

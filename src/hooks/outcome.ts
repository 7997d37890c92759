// What one hook's run means, as in Claude Code (docs/hooks.md): exit 0 goes on, and its stdout
// is either JSON for agentloop or text (context for the model at UserPromptSubmit and
// SessionStart, shown in the transcript view elsewhere); exit 2 blocks, its stderr the reason;
// anything else (another code, a crash, a timeout, JSON agentloop cannot use) is an error that
// is shown and lets the step go on, unless the hook said "onFailure": "block".

import type { HookDecision } from "../core/events.js";
import { isRecord } from "../core/settings.js";
import type { HookDefinition, HookEventName } from "./config.js";
import type { CommandRun } from "./run-command.js";

export interface HookOutcome {
  decision: HookDecision;
  /** A block's reason (what the model or the user reads); an error's description. */
  reason?: string;
  /** Shown in the transcript view only. */
  output?: string;
  /** Text for the model: UserPromptSubmit's and SessionStart's stdout, or additionalContext. */
  context?: string;
  /** PreToolUse: the input the call runs with instead, judged by the permission check again. */
  updatedInput?: Record<string, unknown>;
}

/** The events whose step a hook can stop; at the others a block is shown like an error. */
const CAN_BLOCK: readonly HookEventName[] = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
];
/** The events whose plain stdout the model reads. */
const STDOUT_IS_CONTEXT: readonly HookEventName[] = ["UserPromptSubmit", "SessionStart"];
const PERMISSION_DECISIONS = ["allow", "ask", "deny"] as const;

export function outcomeOf(hook: HookDefinition, run: CommandRun): HookOutcome {
  const outcome = exitOutcome(hook.event, run);
  if (outcome.decision === "block" && !CAN_BLOCK.includes(hook.event)) {
    return {
      decision: "error",
      reason: `exit code 2, but a ${hook.event} hook cannot block: ${outcome.reason}`,
    };
  }
  if (outcome.decision !== "error" || hook.onFailure !== "block") return outcome;
  return {
    decision: "block",
    reason: `the hook failed (${outcome.reason}) and its "onFailure" is "block"`,
  };
}

function exitOutcome(event: HookEventName, run: CommandRun): HookOutcome {
  const stderr = run.stderr.trim();
  if (run.failure) return { decision: "error", reason: run.failure };
  if (run.exitCode === 2) {
    return { decision: "block", reason: stderr || "a hook blocked it (exit code 2, no message)" };
  }
  if (run.exitCode !== 0) {
    const said = stderr ? `: ${stderr.split("\n").slice(0, 5).join(" ⏎ ")}` : "";
    return { decision: "error", reason: `exited with code ${run.exitCode}${said}` };
  }
  const stdout = run.stdout.trim();
  const json = stdout.startsWith("{") ? parsedObject(stdout) : null;
  if (json) return jsonOutcome(event, json);
  if (stdout === "") return { decision: "continue" };
  return STDOUT_IS_CONTEXT.includes(event)
    ? { decision: "continue", context: stdout }
    : { decision: "continue", output: stdout };
}

/** Claude Code's JSON output: decision/reason, and hookSpecificOutput for the event. */
function jsonOutcome(event: HookEventName, json: Record<string, unknown>): HookOutcome {
  const specific = isRecord(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const message = typeof json.systemMessage === "string" ? json.systemMessage : undefined;
  const context = specific.additionalContext;
  const shared: HookOutcome = {
    decision: "continue",
    ...(message ? { output: message } : {}),
    ...(typeof context === "string" && context.trim() ? { context } : {}),
  };
  const reasonOf = (value: unknown, fallback: string) =>
    typeof value === "string" && value.trim() ? value : fallback;
  if (json.decision === "block") {
    return { ...shared, decision: "block", reason: reasonOf(json.reason, "a hook blocked it") };
  }
  if (json.decision !== undefined && json.decision !== "approve") {
    return {
      decision: "error",
      reason: `its "decision" is ${JSON.stringify(json.decision)}, not "block"`,
    };
  }
  if (event !== "PreToolUse") return shared;
  const permission = specific.permissionDecision;
  const why = specific.permissionDecisionReason;
  if (permission !== undefined && !PERMISSION_DECISIONS.some((known) => known === permission)) {
    return {
      decision: "error",
      reason: `its "permissionDecision" is ${JSON.stringify(permission)}, not allow, ask or deny`,
    };
  }
  if (permission === "deny") {
    return { ...shared, decision: "block", reason: reasonOf(why, "a PreToolUse hook denied it") };
  }
  const updated = specific.updatedInput;
  if (updated !== undefined && !isRecord(updated)) {
    return { decision: "error", reason: `its "updatedInput" is not an object` };
  }
  return {
    ...shared,
    ...(permission === "allow" || permission === "ask" ? { decision: permission } : {}),
    ...(typeof why === "string" && why.trim() ? { reason: why } : {}),
    ...(updated ? { updatedInput: updated } : {}),
  };
}

function parsedObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

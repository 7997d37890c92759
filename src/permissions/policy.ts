// Permission modes: what happens to each tool call the classifier has judged.
//
//   ask        proven read-only runs; anything else asks yes / no / always (the REPL default)
//   auto       never asks; commands run in the sandbox; flagged and denied ones are refused
//   read-only  like auto, in a sandbox where nothing is writable
//   yolo       no sandbox, no questions; only the deny rules and the built-in deny list hold
//   plan       look, then propose: like read-only, but the file tools may write the plan file

import { homedir, tmpdir } from "node:os";
import { ConfigError } from "../core/errors.js";
import { workTreeRootOf } from "../core/git-directory.js";
import type { ToolUseBlock } from "../core/messages.js";
import { PERMISSION_MODES, type PermissionMode } from "../core/permission-mode.js";
import { userSettingsPath } from "../core/settings.js";
import { resolveToolPath } from "../core/tool-path.js";
import { initShellParser, isShellParserReady } from "../shell/parse.js";
import type { Tool } from "../tools/tool.js";
import type { PermissionCheck, PermissionHint } from "../tools/toolbox.js";
import { classifyCommand, type Decision, gitStateWriter, isReadOnlyScript } from "./classify.js";
import { judgeFileAccess, realPathsOf } from "./file-access.js";
import { rememberAllowRules } from "./local-rules.js";
import { type PermissionRules, ruleForTool, toolRule } from "./rules.js";

export { PERMISSION_MODES, type PermissionMode } from "../core/permission-mode.js";

/** `ask` where a person can answer (the REPL), `auto` for one-shot runs. */
export function defaultPermissionMode(options: { interactive: boolean }): PermissionMode {
  return options.interactive ? "ask" : "auto";
}

export function parsePermissionMode(text: string): PermissionMode {
  const mode = PERMISSION_MODES.find((candidate) => candidate === text);
  if (!mode) {
    throw new ConfigError(
      `Unknown permission mode "${text}"; choose one of ${PERMISSION_MODES.join(", ")}.`,
    );
  }
  return mode;
}

/** The sandbox a mode runs commands in: none, or one whose workspace is (not) writable. */
export function sandboxFor(mode: PermissionMode): { writable: boolean } | null {
  switch (mode) {
    case "ask":
    case "yolo":
      return null;
    case "auto":
      return { writable: true };
    case "read-only":
    case "plan":
      return { writable: false };
  }
}

export interface PermissionQuestion {
  tool: string;
  action: CallAction;
  /** What the call would do, shown before the question (the diff of an edit). */
  preview?: string;
  /** Why a person is asked; left out when it would only say again what the action says. */
  reason?: string;
  /** The allow rules "always" would add to .agentloop/settings.local.json; empty: yes/no only. */
  rules: string[];
}

/** What a call would do: run a command (bash), change files (a file tool), or take this input. */
export type CallAction =
  | { kind: "command"; command: string }
  | { kind: "files"; paths: string[] }
  | { kind: "input"; input: Record<string, unknown> };

/** "interrupted": the person pressed Ctrl-C instead of answering, which stops the turn. */
export type PermissionAnswer = "yes" | "no" | "always" | "interrupted" | { no: string };

export interface PermissionOptions {
  /** The mode, or a function giving the current one when it changes during the session (plan mode). */
  mode: PermissionMode | (() => PermissionMode);
  /** The one file plan mode lets the file tools change: the session's plan, as an absolute path. */
  planFile?: () => string;
  workspace: string;
  /** Loaded with `loadPermissionRules`; "always" answers are added to it. */
  rules: PermissionRules;
  /** The real environment, which locates the user's settings and state; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Asks the person at the terminal; absent when there is none. */
  ask?: (question: PermissionQuestion) => Promise<PermissionAnswer>;
  home?: string;
  /** Directories outside the workspace that commands may change (the sandbox's temp dir). */
  scratch?: string[];
  /** The platform whose sandbox the temp directories follow; default process.platform. */
  platform?: NodeJS.Platform;
  /**
   * Whether ask mode runs the commands it lets through unasked in the read-only sandbox (the
   * bash tool does once that sandbox has started). Absent or false, git commands are asked
   * about: unsandboxed, even `git status` runs what a repository's config names.
   */
  readOnlySandboxed?: () => boolean;
  /** The person's `"sandbox": {"writableGitDir": true}`: auto mode's commands may write .git. */
  writableGitDir?: boolean;
}

type Outcome = { allowed: true } | { allowed: false; reason: string };

export function createPermissionCheck(settings: PermissionOptions): PermissionCheck {
  const { mode, rules } = settings;
  const modeNow = typeof mode === "function" ? mode : () => mode;
  return async (call, tool, hint) => {
    // A file tool's paths are resolved once: judged as they lead now, and handed to the tool.
    const files = tool.files?.(call.input as Record<string, unknown>);
    const realPaths = files
      ? realPathsOf(files, settings.workspace, settings.home ?? homedir())
      : undefined;
    const outcome = await decide(call, tool, hint, realPaths);
    return outcome.allowed && realPaths ? { allowed: true, realPaths } : outcome;
  };

  async function decide(
    call: ToolUseBlock,
    tool: Tool,
    hint: PermissionHint | undefined,
    realPaths: Record<string, string> | undefined,
  ): Promise<Outcome> {
    const current = modeNow();
    // Inside bubblewrap /tmp is private to agentloop, so deleting there harms nothing. Seatbelt
    // (macOS) leaves the host's /tmp and $TMPDIR in place, unwritable: there the scratch
    // directory, the commands' TMPDIR, is the only one, for the file tools too.
    const seatbelt =
      sandboxFor(current) !== null && (settings.platform ?? process.platform) === "darwin";
    const privateTmp = sandboxFor(current) !== null && !seatbelt;
    const scratch = [...(settings.scratch ?? []), ...(privateTmp ? ["/tmp"] : [])];
    const gitUnsandboxed = current === "ask" && !settings.readOnlySandboxed?.();
    const temporary = seatbelt ? [] : [tmpdir()];
    const options = { ...settings, scratch, gitUnsandboxed, temporary, realPaths };
    const judged = withHint(await judge(call, tool, options), hint, current);
    if (judged.verdict === "deny")
      return { allowed: false, reason: `Permission denied: ${judged.reason}.` };
    const gitRefusal = current === "auto" ? refuseGitWrite(call, tool, settings) : null;
    if (gitRefusal) return gitRefusal;
    const planned = current === "plan" ? judgePlanFile(call, tool, options) : null;
    if (planned) return planned;
    if (judged.verdict === "allow") return { allowed: true };
    switch (current) {
      case "yolo":
        return { allowed: true };
      case "auto":
      case "read-only":
      case "plan":
        return refuseOrSandbox(judged, current, tool);
      case "ask":
        return askPerson(judged, call, tool, options);
    }
  }

  async function askPerson(
    judged: Extract<Decision, { verdict: "ask" }>,
    call: ToolUseBlock,
    tool: Tool,
    { ask, workspace, env }: PermissionOptions,
  ): Promise<Outcome> {
    if (!ask) {
      return {
        allowed: false,
        reason: `Permission needed: ${judged.reason}, and there is no terminal to ask for approval. Run agentloop with --permission-mode auto to run commands in the sandbox without asking, or add an allow rule to your own settings, ${userSettingsPath(env)}.`,
      };
    }
    const input = call.input as Record<string, unknown>;
    const action = actionOf(call, tool);
    const preview = await tool.preview?.(input).catch(() => undefined);
    // An ordinary file change's reason ("edit would change notes.txt") is the action again;
    // one outside the workspace or under an ask rule says more.
    const repeatsAction = action.kind === "files" && !judged.flagged;
    const answer = await ask({
      tool: tool.name,
      action,
      preview,
      reason: repeatsAction ? undefined : judged.reason,
      rules: judged.rules,
    });
    if (answer === "yes") return { allowed: true };
    if (answer === "interrupted") {
      return { allowed: false, reason: "Interrupted by the user when asked; it did not run." };
    }
    if (answer === "always") {
      rules.allow.push(...judged.rules);
      // The rule holds for this session even if the file cannot be written.
      await rememberAllowRules(workspace, judged.rules, env).catch(() => undefined);
      return { allowed: true };
    }
    const said =
      typeof answer === "object" && answer.no.trim() ? ` They said: "${answer.no.trim()}"` : "";
    return { allowed: false, reason: `The user declined to run this.${said}` };
  }
}

/**
 * A PreToolUse hook's answer: "allow" skips the question of mode ask, and only that: deny rules,
 * the built-in deny list, the sandbox and the refusals of the modes that never ask still hold.
 * "ask" asks about a call that would not be asked about (and so is refused where none is asked).
 */
function withHint(
  judged: Decision,
  hint: PermissionHint | undefined,
  mode: PermissionMode,
): Decision {
  const skipsQuestion = judged.verdict === "ask" && mode === "ask";
  if (skipsQuestion && hint?.decision === "allow") return { verdict: "allow", reason: "" };
  if (judged.verdict !== "allow" || hint?.decision !== "ask") return judged;
  const reason = `a PreToolUse hook asks for approval${hint.reason ? ` (${hint.reason})` : ""}`;
  return { verdict: "ask", reason, flagged: true, rules: [] };
}

/**
 * Plan mode changes one file, the plan: a file tool's call that changes only it is allowed, one
 * that changes anything else is refused; a call that only reads is judged as in read-only mode.
 */
function judgePlanFile(call: ToolUseBlock, tool: Tool, options: PermissionOptions): Outcome | null {
  const input = call.input as Record<string, unknown>;
  const changed = (tool.files?.(input) ?? []).filter((file) => file.change);
  if (changed.length === 0) return null;
  const planFile = options.planFile?.();
  const home = options.home ?? homedir();
  const others = changed.filter(
    (file) => resolveToolPath(options.workspace, file.path, home) !== planFile,
  );
  if (others.length === 0 && planFile !== undefined) return { allowed: true };
  const where = planFile ? `the plan file, ${planFile}` : "the plan file";
  return {
    allowed: false,
    reason: `Permission denied: plan mode changes no file but ${where}, and ${others.map((file) => `"${file.path}"`).join(", ")} is not it. Write your plan there, then call exit_plan_mode to ask the user to approve it.`,
  };
}

function refuseOrSandbox(
  judged: Extract<Decision, { verdict: "ask" }>,
  mode: "auto" | "read-only" | "plan",
  tool: Tool,
): Outcome {
  // The sandbox contains what bash does; nothing contains what another tool does.
  const unsandboxed = tool.name !== "bash" && mode !== "auto";
  if (!judged.flagged && !unsandboxed) return { allowed: true };
  return {
    allowed: false,
    reason: `Permission denied: ${judged.reason}, and ${mode} mode does not ask for approval. Do it another way, or ask the user to run it or to start agentloop with --permission-mode ask.`,
  };
}

/**
 * In auto mode, a command that writes the repository's git state (`git commit`, `git add`) would
 * only fail in the sandbox, where .git is read-only: it is refused saying why and how to allow
 * it. Unless the person's own settings open .git, or the workspace is in no repository.
 */
function refuseGitWrite(
  call: ToolUseBlock,
  tool: Tool,
  settings: PermissionOptions,
): Outcome | null {
  const command = commandOf(call, tool);
  if (command === null || settings.writableGitDir) return null;
  const writer = gitStateWriter(command);
  if (writer === null || workTreeRootOf(settings.workspace) === null) return null;
  return {
    allowed: false,
    reason: `Permission denied: ${writer} writes the repository's .git, which is read-only in the sandbox because a repository's git config can name commands that would run outside it; the user can allow it with "sandbox": {"writableGitDir": true} in their own settings (${userSettingsPath(settings.env)}), or run agentloop with --permission-mode ask.`,
  };
}

/**
 * The options, with the temp directories the file tools may change besides the scratch ones,
 * where a file tool's paths lead (realPathsOf), and whether git would run unsandboxed where it
 * goes unasked.
 */
type JudgeOptions = PermissionOptions & {
  temporary: string[];
  realPaths: Record<string, string> | undefined;
  gitUnsandboxed: boolean;
};

async function judge(call: ToolUseBlock, tool: Tool, options: JudgeOptions): Promise<Decision> {
  const command = commandOf(call, tool);
  if (command !== null) {
    await initShellParser();
    return classifyCommand(command, options);
  }
  const input = call.input as Record<string, unknown>;
  if (tool.files) {
    const home = options.home ?? homedir();
    return judgeFileAccess(
      tool.name,
      tool.files(input),
      { ...options, home, scratch: options.scratch ?? [] },
      options.realPaths,
    );
  }
  const { allow, ask, deny } = options.rules;
  const denied = ruleForTool(deny, tool.name);
  if (denied) return { verdict: "deny", reason: `${tool.name} matches the deny rule "${denied}"` };
  const asked = ruleForTool(ask, tool.name);
  if (asked) {
    return {
      verdict: "ask",
      reason: `${tool.name} matches the ask rule "${asked}"`,
      flagged: true,
      rules: [],
    };
  }
  if (ruleForTool(allow, tool.name) || tool.isReadOnly?.(input) || tool.delegates) {
    return { verdict: "allow", reason: "" };
  }
  const rule = toolRule(tool.name);
  return { verdict: "ask", reason: `${tool.name} may change files`, flagged: false, rules: [rule] };
}

function actionOf(call: ToolUseBlock, tool: Tool): CallAction {
  const command = commandOf(call, tool);
  if (command !== null) return { kind: "command", command };
  const input = call.input as Record<string, unknown>;
  const files = tool.files?.(input);
  return files
    ? { kind: "files", paths: files.map((file) => file.path) }
    : { kind: "input", input };
}

/** The shell command a call would run, or null for tools other than bash. */
function commandOf(call: ToolUseBlock, tool: Tool): string | null {
  const command = (call.input as Record<string, unknown>).command;
  return tool.name === "bash" && typeof command === "string" ? command : null;
}

/**
 * For the bash tool's `isReadOnly`: true only when the command provably changes nothing.
 * Synchronous, so it answers false until `initShellParser()` has finished.
 */
export function isReadOnlyCommand(command: string): boolean {
  return isShellParserReady() && isReadOnlyScript(command);
}

export { initShellParser } from "../shell/parse.js";
export { classifyCommand, type Decision } from "./classify.js";
export { loadPermissionRules, noRules, type PermissionRules } from "./rules.js";

// Hooks the project defines (its .agentloop/settings.json, or .claude/settings.json) are code
// from the repository: like the project's MCP servers (src/mcp/approval.ts) they run only once
// the user has said so, asked once at a terminal in permission mode ask and remembered by a
// hash of the file's hooks, or allowed for every project by "allowProjectHooks": true in the
// user's own settings. A line says whenever a project's hooks are not run. The user's own hooks
// always run.

import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  type ApprovalContext,
  answersFor,
  approveDefinition,
  noticeSelfApproval,
  projectKey,
  rememberAnswer,
} from "../core/approvals.js";
import { canonicalJson } from "../core/canonical-json.js";
import { ConfigError } from "../core/errors.js";
import { readSettings, userSettingsPath } from "../core/settings.js";
import { stateDirectory } from "../core/state-directory.js";
import { plural } from "../core/wording.js";
import type { HookDefinition } from "./config.js";

export interface HookApprovalQuestion {
  file: string;
  /** One line per hook: its event, matcher and command. */
  hooks: string[];
}

export type HookTrustContext = ApprovalContext<HookApprovalQuestion>;

export interface TrustedHooks {
  running: HookDefinition[];
  /** The project's hooks that do not run, for /hooks. */
  skipped: HookDefinition[];
}

export async function trustHooks(
  hooks: HookDefinition[],
  context: HookTrustContext,
): Promise<TrustedHooks> {
  const files = [
    ...new Set(hooks.filter((hook) => hook.source === "project").map((hook) => hook.file)),
  ];
  if (files.length === 0) return { running: hooks, skipped: [] };
  const userFile = userSettingsPath(context.env);
  const allowAll = (await readSettings(userFile)).allowProjectHooks ?? false;
  if (typeof allowAll !== "boolean") {
    throw new ConfigError(`"allowProjectHooks" in ${userFile} must be true or false.`);
  }
  await noticeSelfApproval(context, ["allowProjectHooks"], "a project's hooks", context.onNotice);
  if (allowAll) return { running: hooks, skipped: [] };

  const stateFile = hookApprovalsPath(context.env);
  const project = await projectKey(context.workspace);
  const remembered = answersFor(await readSettings(stateFile), project);
  const approved = new Set<string>();
  const { ask } = context;
  for (const file of files) {
    const ofFile = hooks.filter((hook) => hook.file === file);
    const answer = await approveDefinition(hooksHash(ofFile), remembered[file], {
      notRun: `${plural(ofFile.length, "hook")} from ${file} skipped`,
      declined:
        "you declined them (you are asked again if they change); to run a project's hooks anyway",
      changed: "they changed since you answered",
      needed: "hooks a project defines need your approval",
      allowInSettings: `add "allowProjectHooks": true to ${userFile}`,
      onNotice: context.onNotice,
      ask: ask && (() => ask({ file, hooks: ofFile.map(describeHook) })),
      remember: (given) => rememberAnswer(stateFile, project, file, given),
    });
    // Ctrl-C: none of the files still to ask about runs, and nothing is remembered.
    if (answer === null) break;
    if (answer) approved.add(file);
  }
  const runs = (hook: HookDefinition) => hook.source === "user" || approved.has(hook.file);
  return { running: hooks.filter(runs), skipped: hooks.filter((hook) => !runs(hook)) };
}

export function hookApprovalsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDirectory(env), "hook-approvals.json");
}

/** `PreToolUse Bash|Edit: ./check.sh` (the matcher left out when there is none). */
export function describeHook(hook: HookDefinition): string {
  return `${hook.event}${hook.matcher ? ` ${hook.matcher}` : ""}: ${hook.command}`;
}

/** A changed hook (its event, matcher, command, timeout or onFailure) changes the hash. */
function hooksHash(hooks: HookDefinition[]): string {
  const defined = hooks.map(({ event, matcher, command, timeoutSeconds, onFailure }) => ({
    event,
    matcher,
    command,
    timeoutSeconds,
    onFailure,
  }));
  return createHash("sha256").update(canonicalJson(defined)).digest("hex");
}

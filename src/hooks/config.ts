// The hooks of the settings files, in Claude Code's shape (docs/hooks.md):
//
//   {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
//                              "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}
//
// read from the user's settings, the project's .agentloop/settings.json and, when the user's
// settings say "claudeProjectHooks": true, the project's .claude/settings.json, then from the
// session's component sources (core/component-sources.ts: each enabled plugin's hooks file,
// docs/plugins.md). A mistyped entry is a ConfigError naming the file and the place; events
// and hook types agentloop does not have are skipped with a notice, so settings written for
// Claude Code still load.

import { join } from "node:path";
import { type ComponentSources, expandVariables } from "../core/component-sources.js";
import { ConfigError } from "../core/errors.js";
import { type ProjectSettings, settingsOf } from "../core/project-settings.js";
import { isRecord, projectSettingsPath, userSettingsPath } from "../core/settings.js";
import { compileMatcher } from "./matcher.js";

export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Seconds a hook may run before it is killed with its children, unless it says otherwise. */
export const DEFAULT_TIMEOUT_SECONDS = 60;

export interface HookDefinition {
  event: HookEventName;
  /** As written; "" when there is none (every tool, every source). */
  matcher: string;
  command: string;
  timeoutSeconds: number;
  /** "block": a crash, a timeout or bad output blocks, as exit 2 does (a policy that fails closed). */
  onFailure: "continue" | "block";
  /** The user's own hooks always run; the project's only once approved (trust.ts). */
  source: "user" | "project";
  file: string;
  /** Variables beside the session's, from its source: a plugin's CLAUDE_PLUGIN_ROOT and _DATA. */
  env?: Record<string, string>;
}

export interface HookLocations {
  workspace: string;
  /** The real environment, never one with the project's .env: it locates the user's settings. */
  env: NodeJS.ProcessEnv;
  /** The settings files as start-up read them; absent, they are read now. */
  read?: ProjectSettings;
  /** Hooks beside the settings' (enabled plugins'), as the session's chapters gave them. */
  sources?: ComponentSources;
  onNotice: (sentence: string) => void;
}

/** Every hook of the settings files, the user's first, in the order written. */
export async function loadHooks(where: HookLocations): Promise<HookDefinition[]> {
  const userFile = userSettingsPath(where.env);
  const user = await settingsOf(userFile, where.read);
  const claudeHooks = user.claudeProjectHooks ?? false;
  if (typeof claudeHooks !== "boolean") {
    throw new ConfigError(`"claudeProjectHooks" in ${userFile} must be true or false.`);
  }
  const files: { file: string; source: HookDefinition["source"] }[] = [
    { file: projectSettingsPath(where.workspace), source: "project" },
  ];
  if (claudeHooks) {
    files.push({ file: join(where.workspace, ".claude", "settings.json"), source: "project" });
  }
  const hooks = parseHooks(user, userFile, "user", where.onNotice);
  for (const { file, source } of files) {
    hooks.push(...parseHooks(await settingsOf(file, where.read), file, source, where.onNotice));
  }
  // A source's hooks (an enabled plugin's) run as the person's own: they approved them by
  // installing it. Its variables are in their environment and expanded in their commands.
  for (const source of where.sources?.sources ?? []) {
    for (const { file, settings } of source.hooks) {
      for (const hook of parseHooks(settings, file, "user", where.onNotice)) {
        const env = source.variables();
        hooks.push({ ...hook, command: expandVariables(hook.command, env), env });
      }
    }
  }
  return hooks;
}

export function parseHooks(
  settings: Record<string, unknown>,
  file: string,
  source: HookDefinition["source"],
  onNotice: (sentence: string) => void,
): HookDefinition[] {
  const section = settings.hooks;
  if (section === undefined) return [];
  const where = (path: string) => `"hooks${path}" in ${file}`;
  if (!isRecord(section)) throw new ConfigError(`${where("")} must be an object of event names.`);
  const hooks: HookDefinition[] = [];
  for (const [name, groups] of Object.entries(section)) {
    const event = HOOK_EVENTS.find((known) => known === name);
    if (!event) {
      onNotice(`${where(`.${name}`)} is skipped: agentloop has no hook event of that name.`);
      continue;
    }
    if (!Array.isArray(groups)) throw new ConfigError(`${where(`.${name}`)} must be a list.`);
    for (const [g, group] of groups.entries()) {
      const at = `.${name}[${g}]`;
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        throw new ConfigError(`${where(at)} must be an object with a "hooks" list.`);
      }
      const matcher = group.matcher ?? "";
      if (typeof matcher !== "string")
        throw new ConfigError(`${where(`${at}.matcher`)} must be a string.`);
      const problem = compileMatcher(matcher).problem;
      if (problem) throw new ConfigError(`${where(`${at}.matcher`)} ${problem}.`);
      for (const [h, hook] of group.hooks.entries()) {
        const definition = parseHook(hook, where(`${at}.hooks[${h}]`), onNotice);
        if (definition) hooks.push({ event, matcher, ...definition, source, file });
      }
    }
  }
  return hooks;
}

function parseHook(
  hook: unknown,
  where: string,
  onNotice: (sentence: string) => void,
): Pick<HookDefinition, "command" | "timeoutSeconds" | "onFailure"> | null {
  if (!isRecord(hook)) throw new ConfigError(`${where} must be an object.`);
  if (hook.type !== "command") {
    onNotice(`${where} is skipped: agentloop runs hooks of type "command" only.`);
    return null;
  }
  const { command, timeout = DEFAULT_TIMEOUT_SECONDS, onFailure = "continue" } = hook;
  if (typeof command !== "string" || command.trim() === "") {
    throw new ConfigError(`${where} needs a "command" to run.`);
  }
  if (typeof timeout !== "number" || !(timeout > 0)) {
    throw new ConfigError(`"timeout" of ${where} must be a number of seconds above 0.`);
  }
  if (onFailure !== "continue" && onFailure !== "block") {
    throw new ConfigError(`"onFailure" of ${where} must be "continue" or "block".`);
  }
  return { command, timeoutSeconds: timeout, onFailure };
}

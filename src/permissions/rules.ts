// Allow / ask / deny rules by command prefix ("git push", "npm test"), read from the user's
// ~/.config/agentloop/settings.json and the project's .agentloop/settings.json and
// settings.local.json, whose allow rules count once the person trusts them
// (core/project-settings.ts). A rule "tool:NAME" names a tool other than bash.

import { ConfigError } from "../core/errors.js";
import { type ProjectSettings, readAllSettings } from "../core/project-settings.js";
import { isRecord } from "../core/settings.js";
import type { Word } from "../shell/syntax.js";
import { programName } from "./wrappers.js";

export interface PermissionRules {
  allow: string[];
  ask: string[];
  deny: string[];
}

export const noRules = (): PermissionRules => ({ allow: [], ask: [], deny: [] });

const TOOL_PREFIX = "tool:";

export const toolRule = (toolName: string) => `${TOOL_PREFIX}${toolName}`;

/**
 * The first rule naming the tool: `tool:NAME`, or `tool:PREFIX*` for every tool whose name
 * starts so (`tool:mcp__github__*` names every tool of one MCP server).
 */
export function ruleForTool(rules: string[], toolName: string): string | undefined {
  return rules.find((rule) => {
    if (!rule.startsWith(TOOL_PREFIX)) return false;
    const pattern = rule.slice(TOOL_PREFIX.length);
    return pattern.endsWith("*") ? toolName.startsWith(pattern.slice(0, -1)) : pattern === toolName;
  });
}

/** The first rule that is a prefix of the command, compared word by word. A word only known at
 * run time matches nothing. The program may be written with its directory (`/bin/rm`). */
export function matchingRule(rules: string[], argv: Word[]): string | undefined {
  return rules.find((rule) => {
    if (rule.startsWith(TOOL_PREFIX)) return false;
    const words = rule.trim().split(/\s+/);
    if (words.length > argv.length || words[0] === "") return false;
    return words.every((word, index) => {
      const value = argv[index]?.value;
      return index === 0 ? value === word || programName(argv[0]) === word : value === word;
    });
  });
}

/** Programs whose first argument is a subcommand worth its own rule (`npm test`, `git push`). */
const WITH_SUBCOMMANDS = new Set(
  "git npm pnpm yarn npx bun deno cargo go docker podman kubectl make pip pip3 uv poetry gh apt apt-get brew dotnet mvn gradle bundle rake composer terraform helm systemctl".split(
    " ",
  ),
);

/** The rule "always" would remember for a command: its program, plus the subcommand if any. */
export function suggestRule(argv: Word[]): string | null {
  const name = programName(argv[0]);
  if (!name) return null;
  const subcommand = argv[1]?.value;
  if (WITH_SUBCOMMANDS.has(name) && subcommand && /^[a-z][\w:-]*$/i.test(subcommand)) {
    return `${name} ${subcommand}`;
  }
  return name;
}

/** The rules in force, the user's and the project's merged (a missing file has none). */
export async function loadPermissionRules(options: {
  workspace: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** The files as start-up read them, once for every part (SettingsPlace). */
  read?: ProjectSettings;
}): Promise<PermissionRules> {
  const merged = noRules();
  for (const { file, settings } of await readAllSettings(options)) {
    const rules = rulesFrom(settings, file);
    merged.allow.push(...rules.allow);
    merged.ask.push(...rules.ask);
    merged.deny.push(...rules.deny);
  }
  return merged;
}

/** The rules of one settings file; a mistyped "permissions" is a ConfigError naming it. */
export function rulesFrom(settings: Record<string, unknown>, file: string): PermissionRules {
  const permissions = settings.permissions ?? {};
  if (!isRecord(permissions)) {
    throw new ConfigError(
      `"permissions" in ${file} must be an object with allow, ask and deny lists.`,
    );
  }
  const list = (key: keyof PermissionRules): string[] => {
    const value = permissions[key] ?? [];
    if (!Array.isArray(value) || value.some((rule) => typeof rule !== "string")) {
      throw new ConfigError(`"permissions.${key}" in ${file} must be a list of strings.`);
    }
    return value.map((rule: string) => rule.trim()).filter((rule) => rule !== "");
  };
  return { allow: list("allow"), ask: list("ask"), deny: list("deny") };
}

// The settings in force: the person's own file, then the project's two files, of which a key that
// widens what runs or what it costs counts only once the person trusts that file. A repository
// ships .agentloop/settings.json (and could ship settings.local.json too), so neither may
// approve its own commands: what it would widen is held back until the person approved the
// file as it is now (remembered by the hash of what it holds back, asked again when that
// changes, as for a project's hooks and MCP servers), or their own settings list the project in
// "allowProjectSettings". What only narrows applies at once.

import { createHash } from "node:crypto";
import { join } from "node:path";
import { type Answer, answersFor, listsProject, projectKey } from "./approvals.js";
import { canonicalJson } from "./canonical-json.js";
import {
  isRecord,
  localSettingsPath,
  projectSettingsPath,
  readSettings,
  userSettingsPath,
} from "./settings.js";
import { stateDirectory } from "./state-directory.js";

/**
 * Keys of a project's file in force at once: `api` chooses between the two protocols of the
 * same server, and `hooks` have an approval of their own (src/hooks/trust.ts). Of
 * `permissions`, `deny` and `ask` are in force at once too: a deny rule only refuses, and an
 * ask rule never outranks a deny rule or the built-in deny list (permissions/classify.ts
 * checks those first), so it can only ask where a command would have run.
 */
const IN_FORCE_AT_ONCE = new Set(["api", "hooks"]);
const NARROWING_RULES = new Set(["deny", "ask"]);

/**
 * Keys only the person's own settings may set, never honoured from a project's file even once
 * it is trusted: what allows a project's settings, its .env, hooks and MCP servers, and the
 * MCP servers themselves (a project defines its own in .mcp.json). A later key that lets
 * agentloop reach further on its own, beyond the workspace, belongs here too. A chapter names
 * its own such keys in its chapter.ts (`userOnlySettings`); test/chapters.test.ts holds this
 * list to them, since core/ cannot read the chapters' list.
 */
export const USER_ONLY_KEYS = [
  "allowProjectSettings",
  "allowProjectDotenv",
  "allowProjectHooks",
  "claudeProjectHooks",
  "enableAllProjectMcpServers",
  "enabledMcpjsonServers",
  "mcpServers",
  "memory",
  "sandbox",
  "teams",
  "webFetch",
];

/** Where the person's answers about a project's settings are remembered. */
export function settingsApprovalsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDirectory(env), "settings-approvals.json");
}

export interface ProjectSettingsFile {
  file: string;
  /** The whole file, as written ({} when there is none). */
  settings: Record<string, unknown>;
  /** What the file would widen, in the file's own shape: `{permissions: {allow: [...]}, tools}`. */
  held: Record<string, unknown>;
  /** The hash of `held`, which an approval names. */
  definition: string;
  /** `held` is in force: there is none, the person approved it as it is, or allows the project. */
  trusted: boolean;
  /** The person's latest answer about this file (declined, or about what it held before). */
  earlier?: Answer;
}

export interface ProjectSettings {
  /** The project's real path, under which answers are remembered and which the person lists. */
  project: string;
  userFile: string;
  user: Record<string, unknown>;
  /** The project's file, then its local file. */
  files: ProjectSettingsFile[];
}

export async function readProjectSettings(where: {
  workspace: string;
  /** The real environment: a repository that could set XDG_CONFIG_HOME could approve itself. */
  env?: NodeJS.ProcessEnv;
  home?: string;
}): Promise<ProjectSettings> {
  const env = where.env ?? process.env;
  const userFile = userSettingsPath(env, where.home);
  const [user, project, state] = await Promise.all([
    readSettings(userFile),
    projectKey(where.workspace),
    readSettings(settingsApprovalsPath(env)),
  ]);
  const allowed = await listsProject(user, "allowProjectSettings", project, userFile);
  const answers = answersFor(state, project);
  const paths = [projectSettingsPath(where.workspace), localSettingsPath(where.workspace)];
  const files = await Promise.all(
    paths.map(async (file): Promise<ProjectSettingsFile> => {
      const settings = await readSettings(file);
      const held = heldPart(settings);
      const definition = definitionOf(held);
      const earlier = answers[file];
      const approved = earlier?.definition === definition && earlier.approved;
      const trusted = Object.keys(held).length === 0 || allowed || approved;
      return { file, settings, held, definition, trusted, earlier };
    }),
  );
  return { project, userFile, user, files };
}

/** Where the settings are, for a part that reads its keys from them. */
export interface SettingsPlace {
  workspace: string;
  /** The real environment, as for readProjectSettings. */
  env?: NodeJS.ProcessEnv;
  home?: string;
  /**
   * The files as a session's start-up read them, once for all its parts (assembly/assemble.ts);
   * given, nothing is read again. Absent, the files are read now, as they are on disk.
   */
  read?: ProjectSettings;
}

/**
 * The user's settings, then the project's and its local file as far as they are in force, each
 * as a JSON object (a missing file is {}). A part reads its keys in this order, the later file
 * winning where several set one.
 */
export async function readAllSettings(
  where: SettingsPlace,
): Promise<{ file: string; settings: Record<string, unknown> }[]> {
  const { userFile, user, files } = where.read ?? (await readProjectSettings(where));
  return [
    { file: userFile, settings: user },
    ...files.map(({ file, settings, trusted }) => ({
      file,
      settings: trusted ? settings : withoutHeld(settings),
    })),
  ];
}

/**
 * A settings file as `read` holds it (the person's, the project's or its local one, whole, as
 * written), or read now: where a part reads a file's raw keys.
 */
export function settingsOf(
  file: string,
  read: ProjectSettings | undefined,
): Promise<Record<string, unknown>> {
  if (read?.userFile === file) return Promise.resolve(read.user);
  const held = read?.files.find((each) => each.file === file);
  return held ? Promise.resolve(held.settings) : readSettings(file);
}

/**
 * A key only the person's own settings may set, from a read of the files: as readUserOnlyKey
 * (core/settings.ts) gives it.
 */
export function userOnlyKeyIn(
  read: ProjectSettings,
  key: string,
  lets: string,
): { value: unknown; file: string; ignored: string | null } {
  const project = read.files[0];
  const ignored =
    project?.settings[key] === undefined
      ? null
      : `"${key}" in ${project.file} is ignored: only your own settings (${read.userFile}) can ${lets}.`;
  return { value: read.user[key], file: read.userFile, ignored };
}

/** The hash an approval of a file's held keys names. */
export function definitionOf(held: Record<string, unknown>): string {
  return createHash("sha256").update(canonicalJson(held)).digest("hex");
}

/** What a project's file would widen, in its own shape; the keys only a person may set left out. */
export function heldPart(settings: Record<string, unknown>): Record<string, unknown> {
  const held: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (IN_FORCE_AT_ONCE.has(key) || USER_ONLY_KEYS.includes(key)) continue;
    if (key !== "permissions") {
      held[key] = value;
    } else if (isRecord(value)) {
      const widening = Object.entries(value).filter(([kind]) => !NARROWING_RULES.has(kind));
      if (widening.length > 0) held.permissions = Object.fromEntries(widening);
    }
    // A "permissions" that is not an object stays in force, for its reader to report at once.
  }
  return held;
}

/** The file with its held keys taken out: what applies before the person trusts it. */
function withoutHeld(settings: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (IN_FORCE_AT_ONCE.has(key)) kept[key] = value;
    if (key !== "permissions") continue;
    kept.permissions = isRecord(value)
      ? Object.fromEntries(Object.entries(value).filter(([kind]) => NARROWING_RULES.has(kind)))
      : value;
  }
  return kept;
}

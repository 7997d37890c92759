// What a person said about something a repository defines (an MCP server, the hooks of a file,
// the settings of a project): asked once, remembered in their own state under the project's real
// path with a hash of what they answered about, and asked again when that changes. The
// approvals of each kind live in a file of their own in the state directory.

import { mkdir, realpath } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { writeFileAtomically } from "./atomic-write.js";
import { ConfigError } from "./errors.js";
import { isRecord, projectSettingsPath, readSettings, userSettingsPath } from "./settings.js";

/** Where and how a part asks about what a project defines, `Question` being what it shows. */
export interface ApprovalContext<Question> {
  workspace: string;
  /**
   * Locates the user's settings and state. Pass the real environment, not one merged with the
   * project's .env: a repository that could set XDG_CONFIG_HOME could approve itself.
   */
  env: NodeJS.ProcessEnv;
  /**
   * Present only at a terminal in permission mode ask. Null: no answer (Ctrl-C), so what was
   * asked about does not run and the question is asked again next time.
   */
  ask?: (question: Question) => Promise<boolean | null>;
  onNotice: (sentence: string) => void;
}

/** What the user answered about a definition from the repository (a server, the hooks of a file). */
export interface Answer {
  /** The hash of the definition when the user answered. */
  definition: string;
  approved: boolean;
}

/** How one definition from the repository is asked about, remembered and told of. */
export interface DefinitionApproval {
  /** What did not happen, as the notice begins: `MCP server "x" from .mcp.json was not started`. */
  notRun: string;
  /** Why, when the user declined it: ends in the words before `allowInSettings`. */
  declined: string;
  /** Why, when it changed since the user answered. */
  changed: string;
  /** Why, when the user was never asked. */
  needed: string;
  /** How to allow it without being asked: `add "..." to FILE`. */
  allowInSettings: string;
  onNotice: (sentence: string) => void;
  /** Present only at a terminal in permission mode ask; null is Ctrl-C. */
  ask?: () => Promise<boolean | null>;
  remember: (answer: Answer) => Promise<void>;
}

/**
 * Whether a definition from the repository (by its hash) may run: yes once approved as it is
 * now; otherwise asked about, when a person can be, and the answer remembered; otherwise not,
 * with a notice saying why and how to allow it. Null: Ctrl-C, nothing remembered.
 */
export async function approveDefinition(
  definition: string,
  earlier: Answer | undefined,
  approval: DefinitionApproval,
): Promise<boolean | null> {
  const current = earlier?.definition === definition ? earlier : undefined;
  if (current?.approved) return true;
  const { notRun, allowInSettings } = approval;
  if (current) {
    approval.onNotice(`${notRun}: ${approval.declined}, ${allowInSettings}.`);
    return false;
  }
  if (!approval.ask) {
    const why = earlier ? approval.changed : approval.needed;
    approval.onNotice(
      `${notRun}: ${why}; run agentloop at a terminal in permission mode ask to be asked, or ${allowInSettings}.`,
    );
    return false;
  }
  const answer = await approval.ask();
  if (answer !== null) await approval.remember({ definition, approved: answer });
  return answer;
}

/** Answers are remembered per project, under its real path. */
export async function projectKey(workspace: string): Promise<string> {
  return realpath(workspace).catch(() => resolve(workspace));
}

/**
 * Whether `key` of the user's own settings lists the project (`["/home/me/src/app"]`), by its
 * real path; a list holding anything but absolute paths is a ConfigError naming the file.
 */
export async function listsProject(
  settings: Record<string, unknown>,
  key: string,
  project: string,
  file: string,
): Promise<boolean> {
  const paths = settings[key] ?? [];
  if (
    !Array.isArray(paths) ||
    paths.some((path) => typeof path !== "string" || !isAbsolute(path))
  ) {
    throw new ConfigError(`"${key}" in ${file} must be a list of absolute project paths.`);
  }
  const listed = await Promise.all(paths.map((path: string) => projectKey(path)));
  return listed.includes(project);
}

/** The remembered answers for one project; an entry in any other shape counts as none. */
export function answersFor(
  state: Record<string, unknown>,
  project: string,
): Record<string, Answer> {
  const projects = isRecord(state.projects) ? state.projects : {};
  const answers = isRecord(projects[project]) ? projects[project] : {};
  const valid: Record<string, Answer> = {};
  for (const [name, answer] of Object.entries(answers)) {
    if (
      isRecord(answer) &&
      typeof answer.definition === "string" &&
      typeof answer.approved === "boolean"
    ) {
      valid[name] = { definition: answer.definition, approved: answer.approved };
    }
  }
  return valid;
}

/** Re-reads the file before writing, so answers given in another session at once are kept. */
export async function rememberAnswer(
  file: string,
  project: string,
  name: string,
  answer: Answer,
): Promise<void> {
  const state = await readSettings(file);
  const projects = isRecord(state.projects) ? state.projects : {};
  const answers = isRecord(projects[project]) ? projects[project] : {};
  answers[name] = { ...answer, answeredAt: new Date().toISOString() };
  projects[project] = answers;
  const text = `${JSON.stringify({ ...state, version: 1, projects }, null, 2)}\n`;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // All at once, so a crash never leaves half a file; 0600 as it names projects.
  await writeFileAtomically(file, text, { mode: 0o600 });
}

/**
 * A project's own settings cannot approve what it defines: one notice for each of `keys` that
 * its .agentloop/settings.json sets, naming the person's file, where only they count.
 */
export async function noticeSelfApproval(
  where: { workspace: string; env: NodeJS.ProcessEnv },
  keys: string[],
  what: string,
  onNotice: (sentence: string) => void,
): Promise<void> {
  const file = projectSettingsPath(where.workspace);
  const settings = await readSettings(file);
  noticeSelfApprovalIn({ file, settings }, userSettingsPath(where.env), keys, what, onNotice);
}

/** The same, for the project's file as already read, the person's file being `userFile`. */
export function noticeSelfApprovalIn(
  project: { file: string; settings: Record<string, unknown> },
  userFile: string,
  keys: string[],
  what: string,
  onNotice: (sentence: string) => void,
): void {
  for (const key of keys.filter((key) => project.settings[key] !== undefined)) {
    onNotice(
      `"${key}" in ${project.file} is ignored: only your own settings (${userFile}) can allow ${what}.`,
    );
  }
}

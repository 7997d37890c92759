// Asking the person whether a project's settings may widen what runs, once, as a session starts:
// the same approval step as a project's hooks and MCP servers (core/approvals.ts). At a terminal
// in permission mode ask, one question per file listing what it would widen; the answer is
// remembered until that changes. Without one, a line saying what is not applied and how to
// allow it. core/project-settings.ts then reads what is in force.

import {
  type ApprovalContext,
  approveDefinition,
  noticeSelfApprovalIn,
  rememberAnswer,
} from "../core/approvals.js";
import {
  type ProjectSettings,
  type ProjectSettingsFile,
  readProjectSettings,
  settingsApprovalsPath,
} from "../core/project-settings.js";
import { isRecord } from "../core/settings.js";

export interface SettingsApprovalQuestion {
  file: string;
  /** One line per key the file would widen: `allow without asking: python3, make`. */
  widens: string[];
}

/**
 * Returns the files as they are in force once the person answered: `read` (the files as
 * start-up read them; read now when absent) unless an answer was remembered, then read again.
 */
export async function approveProjectSettings(
  context: ApprovalContext<SettingsApprovalQuestion> & { read?: ProjectSettings },
): Promise<ProjectSettings> {
  const read = context.read ?? (await readProjectSettings(context));
  noticeSelfApprovalIn(
    // readProjectSettings lists the project's own file first.
    read.files[0] as ProjectSettingsFile,
    read.userFile,
    ["allowProjectSettings", "allowProjectDotenv"],
    "a project's settings or its .env",
    context.onNotice,
  );
  const { ask } = context;
  let remembered = false;
  for (const waiting of read.files.filter((file) => !file.trusted)) {
    const answer = await approveDefinition(waiting.definition, waiting.earlier, {
      notRun: `${keysOf(waiting.held).join(", ")} in ${waiting.file} not applied`,
      declined:
        "you declined them (you are asked again if they change); to apply that project's settings anyway",
      changed: "they changed since you answered",
      needed: "a project's settings that widen what runs or what it costs need your approval",
      allowInSettings: allowInSettings(read),
      onNotice: context.onNotice,
      ask: ask && (() => ask({ file: waiting.file, widens: widens(waiting.held) })),
      remember: (given) => {
        remembered = true;
        return rememberAnswer(
          settingsApprovalsPath(context.env),
          read.project,
          waiting.file,
          given,
        );
      },
    });
    // Ctrl-C: the files still to ask about wait, and nothing is remembered.
    if (answer === null) break;
  }
  return remembered ? readProjectSettings(context) : read;
}

/**
 * For /permissions: the project's settings not in force, one line per file (the allow rules
 * named, what else it would widen by key), and how to apply them; none when all are in force.
 */
export async function waitingSettings(where: {
  workspace: string;
  env: NodeJS.ProcessEnv;
}): Promise<string[]> {
  const read = await readProjectSettings(where);
  const waiting = read.files.filter((file) => !file.trusted);
  if (waiting.length === 0) return [];
  return [
    ...waiting.map((file) => `Not applied, from ${file.file}: ${widens(file.held).join("; ")}.`),
    `To apply them, start agentloop at a terminal in permission mode ask to be asked, or ${allowInSettings(read)}.`,
  ];
}

function allowInSettings(read: ProjectSettings): string {
  return `add "${read.project}" to "allowProjectSettings" in ${read.userFile}`;
}

/** The held keys with their values, a permission list as `permissions.allow`. */
function heldEntries(held: ProjectSettingsFile["held"]): [string, unknown][] {
  return Object.entries(held).flatMap(([key, value]): [string, unknown][] =>
    key === "permissions" && isRecord(value)
      ? Object.entries(value).map(([kind, rules]) => [`permissions.${kind}`, rules])
      : [[key, value]],
  );
}

function keysOf(held: ProjectSettingsFile["held"]): string[] {
  return heldEntries(held).map(([name]) => name);
}

/** What each held key would do, as the question lists it. */
function widens(held: ProjectSettingsFile["held"]): string[] {
  return heldEntries(held).map(([name, value]) =>
    name === "permissions.allow" && Array.isArray(value)
      ? `allow without asking: ${value.join(", ")}`
      : `${name}: ${JSON.stringify(value)}`,
  );
}

// Where "always" at the REPL goes: the project's local settings file,
// .agentloop/settings.local.json, never the committed .agentloop/settings.json, where one
// person's approval would become every cloner's. The local file is the person's own: git is
// told to leave it out in this clone (.git/info/exclude), and what agentloop writes there is
// remembered as approved, so it stays in force where a file the repository shipped under that
// name would wait for approval like the project's own.

import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { rememberAnswer } from "../core/approvals.js";
import { writeFileAtomically } from "../core/atomic-write.js";
import { excludeFromGit } from "../core/git-directory.js";
import {
  definitionOf,
  heldPart,
  readProjectSettings,
  settingsApprovalsPath,
} from "../core/project-settings.js";
import { isRecord, localSettingsPath } from "../core/settings.js";
import { rulesFrom } from "./rules.js";

/**
 * Adds allow rules to the local settings file, keeping everything else in it. `env` is the real
 * environment: it locates the state where the approval of the file is remembered.
 */
export async function rememberAllowRules(
  workspace: string,
  rules: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const file = localSettingsPath(workspace);
  const { project, files } = await readProjectSettings({ workspace, env });
  const local = files.find((entry) => entry.file === file);
  const settings = { ...local?.settings };
  const permissions = isRecord(settings.permissions) ? { ...settings.permissions } : {};
  permissions.allow = [...new Set([...rulesFrom(settings, file).allow, ...rules])];
  settings.permissions = permissions;
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomically(file, `${JSON.stringify(settings, null, 2)}\n`);
  await excludeFromGit(file);
  // What was in force stays so with the new rules; a file that waits for approval waits on.
  if (local?.trusted) {
    const definition = definitionOf(heldPart(settings));
    await rememberAnswer(settingsApprovalsPath(env), project, file, { definition, approved: true });
  }
}

// Turning a plugin on or off in one settings file, as Claude Code records it:
// `"enabledPlugins": {"demo@fixture": true}` in the person's settings (scope user), the project's
// .agentloop/settings.json (project, shared with the repository) or its settings.local.json
// (local, the person's own in this project).

import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { rememberAnswer } from "../core/approvals.js";
import { writeFileAtomically } from "../core/atomic-write.js";
import { ConfigError } from "../core/errors.js";
import {
  definitionOf,
  heldPart,
  readProjectSettings,
  settingsApprovalsPath,
} from "../core/project-settings.js";
import {
  isRecord,
  localSettingsPath,
  projectSettingsPath,
  readSettings,
  userSettingsPath,
} from "../core/settings.js";
import { ENABLED_PLUGINS_KEY } from "./enabled.js";

export const SCOPES = ["user", "project", "local"] as const;
export type Scope = (typeof SCOPES)[number];

export function settingsFileOf(scope: Scope, workspace: string, env: NodeJS.ProcessEnv): string {
  if (scope === "user") return userSettingsPath(env);
  return scope === "project" ? projectSettingsPath(workspace) : localSettingsPath(workspace);
}

/**
 * Sets `id` to `on` in the scope's file, or takes it out (`on` undefined); the file's path.
 * A project's file the person trusted stays trusted with their own change in it; one that
 * waits for their trust waits on (the returned `waits` says so).
 */
export async function setEnabled(
  where: { scope: Scope; workspace: string; env: NodeJS.ProcessEnv },
  id: string,
  on: boolean | undefined,
): Promise<{ file: string; waits: boolean }> {
  const file = settingsFileOf(where.scope, where.workspace, where.env);
  const before =
    where.scope === "user"
      ? undefined
      : (await readProjectSettings(where)).files.find((entry) => entry.file === file);
  const settings = { ...(await readSettings(file)) };
  const current = settings[ENABLED_PLUGINS_KEY] ?? {};
  if (!isRecord(current)) {
    throw new ConfigError(`"${ENABLED_PLUGINS_KEY}" in ${file} must be an object; fix it first.`);
  }
  const enabled = { ...current };
  if (on === undefined) delete enabled[id];
  else enabled[id] = on;
  settings[ENABLED_PLUGINS_KEY] = enabled;
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomically(file, `${JSON.stringify(settings, null, 2)}\n`);
  if (!before) return { file, waits: false };
  if (before.trusted) {
    const { project } = await readProjectSettings(where);
    const definition = definitionOf(heldPart(settings));
    await rememberAnswer(settingsApprovalsPath(where.env), project, file, {
      definition,
      approved: true,
    });
  }
  return { file, waits: !before.trusted };
}

// Whether a session has the board, decided before anything of it loads: its tools are offered
// when the person named them (--tools, "tools" in a settings file) or turned the board on with
// "tasks": true in a settings file. By default a session has none, so the first request of a
// session that does not use the board stays as it was. AGENTLOOP_TASK_LIST_ID names a board
// that sessions share (Claude Code's CLAUDE_CODE_TASK_LIST_ID); else a session has its own.
// A session that leads a team (src/teams/) has the board too: its teammates work from it.

import { ConfigError } from "../core/errors.js";
import type { SessionPart } from "../core/part.js";
import { type ProjectSettings, readAllSettings } from "../core/project-settings.js";
import { BOARD_ID } from "./board-id.js";
import type { BoardToolName } from "./board-tools.js";
import { CHAPTER } from "./chapter.js";

export async function startTasksPart(input: {
  /** The chapters' tools the session has, chosen or by default (PartContext.partTools). */
  tools: readonly string[];
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** The settings files as the session's start-up read them; absent, read now. */
  settings?: ProjectSettings;
  /** The session leads a team: the board is on, whatever the settings say. */
  team?: boolean;
}): Promise<SessionPart | null> {
  const named = CHAPTER.tools.filter((name) => input.tools.includes(name));
  const on = input.team === true || (await boardTurnedOn(input));
  const offered: readonly BoardToolName[] = on ? CHAPTER.tools : named;
  if (offered.length === 0) return null;
  const shared = input.env.AGENTLOOP_TASK_LIST_ID || undefined;
  if (shared !== undefined && !BOARD_ID.test(shared)) {
    throw new ConfigError(
      `AGENTLOOP_TASK_LIST_ID must be a plain name (letters, digits, ".", "_", "-"), not ${JSON.stringify(shared)}.`,
    );
  }
  const { createTasksPart } = await import("./part.js");
  return createTasksPart({ offered, env: input.env, shared });
}

/** "tasks" in the settings files in force (the project's wins): true turns the board on. */
async function boardTurnedOn(input: {
  workspace: string;
  env: NodeJS.ProcessEnv;
  settings?: ProjectSettings;
}): Promise<boolean> {
  let on = false;
  const where = { workspace: input.workspace, env: input.env, read: input.settings };
  for (const { file, settings } of await readAllSettings(where)) {
    if (settings.tasks === undefined) continue;
    if (typeof settings.tasks !== "boolean") {
      throw new ConfigError(
        `"tasks" in ${file} must be true or false: whether the task board is on.`,
      );
    }
    on = settings.tasks;
  }
  return on;
}

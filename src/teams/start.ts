// Whether a session has a team, decided before anything of it loads: "teams": true in the
// person's own settings (never a project's: a repository does not start agents on its own), or
// --teams. Without it nothing changes: the agent tool has no team fields and send_message is
// not offered, so a session's first request stays as it was. A session without the agent tool
// has no team (it could start no teammate).

import { ConfigError } from "../core/errors.js";
import { type ProjectSettings, userOnlyKeyIn } from "../core/project-settings.js";
import type { TeamsPart } from "./part.js";

export async function startTeamsPart(input: {
  /** --teams. */
  flag: boolean;
  /** The chapters' tools the session has, chosen or by default (PartContext.partTools). */
  partTools: readonly string[];
  /** The settings files as the session's start-up read them. */
  settings: ProjectSettings;
  env: NodeJS.ProcessEnv;
  maxTurns: number;
  /** Tells the person something before the session starts. */
  notice(sentence: string): void;
}): Promise<TeamsPart | null> {
  const setting = userOnlyKeyIn(input.settings, "teams", "turn agent teams on");
  if (setting.ignored) input.notice(setting.ignored);
  if (setting.value !== undefined && typeof setting.value !== "boolean") {
    throw new ConfigError(
      `"teams" in ${setting.file} must be true or false: whether the agent tool may start teammates.`,
    );
  }
  const on = input.flag || setting.value === true;
  if (!on || !input.partTools.includes("agent")) return null;
  const { createTeamsPart } = await import("./part.js");
  return createTeamsPart({ env: input.env, maxTurns: input.maxTurns });
}

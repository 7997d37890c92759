// Whether a session has a team: "teams" in the person's own settings or --teams, never a
// project's; a value that is not true or false is one sentence; no agent tool, no team.

import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import type { ProjectSettings } from "../src/core/project-settings.js";
import { startTeamsPart } from "../src/teams/start.js";

const USER_FILE = "/home/someone/.config/agentloop/settings.json";
const PROJECT_FILE = "/work/project/.agentloop/settings.json";

function settings(user: Record<string, unknown>, project: Record<string, unknown> = {}) {
  const read: ProjectSettings = {
    project: "/work/project",
    userFile: USER_FILE,
    user,
    files: [{ file: PROJECT_FILE, settings: project, held: {}, definition: "", trusted: true }],
  };
  return read;
}

function start(read: ProjectSettings, flag = false, partTools = ["agent", "send_message"]) {
  const notices: string[] = [];
  const started = startTeamsPart({
    flag,
    partTools,
    settings: read,
    env: {},
    maxTurns: 10,
    notice: (sentence) => notices.push(sentence),
  });
  return { started, notices };
}

describe("turning teams on", () => {
  it("is off by default, and on with the person's setting or --teams", async () => {
    expect(await start(settings({})).started).toBeNull();
    expect((await start(settings({ teams: true })).started)?.name).toBe("teams");
    expect((await start(settings({}), true).started)?.name).toBe("teams");
    expect(await start(settings({ teams: false })).started).toBeNull();
  });

  it("ignores a project's setting, and says so", async () => {
    const { started, notices } = start(settings({}, { teams: true }));
    expect(await started).toBeNull();
    expect(notices).toEqual([
      `"teams" in ${PROJECT_FILE} is ignored: only your own settings (${USER_FILE}) can turn agent teams on.`,
    ]);
  });

  it("refuses a value that is not true or false in one sentence", async () => {
    const refused = start(settings({ teams: "yes" })).started;
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(
      `"teams" in ${USER_FILE} must be true or false: whether the agent tool may start teammates.`,
    );
  });

  it("makes no team for a session without the agent tool", async () => {
    expect(await start(settings({ teams: true }), true, ["bash"]).started).toBeNull();
  });
});

// Which tools a session gets: the default set (which depends on whether the model is local),
// --tools when given, else the settings'.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SESSION_PARTS } from "../src/assembly/parts.js";
import { ConfigError } from "../src/core/errors.js";
import { chooseTools } from "../src/tools/tool-set.js";

/** The tools chosen among the built-in ones and those of the chapters in the session's list. */
const choose = (input: Omit<Parameters<typeof chooseTools>[0], "chapters">) =>
  chooseTools({ ...input, chapters: SESSION_PARTS });

/** Their names, the built-in ones first. */
const chooseToolNames = async (input: Omit<Parameters<typeof chooseTools>[0], "chapters">) => {
  const { names, partTools } = await choose(input);
  return [...names, ...partTools];
};

const CRON = ["cron_create", "cron_list", "cron_delete"];

/**
 * A workspace whose project settings are `settings`, which the person's own settings allow
 * ("tools" widens what runs, so a project's counts only once allowed: project-settings.test.ts).
 */
function workspaceWithSettings(settings: object | null) {
  const workspace = mkdtempSync(join(tmpdir(), "agentloop-tools-"));
  const config = join(workspace, "user-config");
  mkdirSync(join(config, "agentloop"), { recursive: true });
  const allowed = { allowProjectSettings: [workspace] };
  writeFileSync(join(config, "agentloop", "settings.json"), JSON.stringify(allowed));
  if (settings) {
    mkdirSync(join(workspace, ".agentloop"));
    writeFileSync(join(workspace, ".agentloop", "settings.json"), JSON.stringify(settings));
  }
  return { workspace, env: { XDG_CONFIG_HOME: config, XDG_STATE_HOME: join(workspace, "state") } };
}

describe("choosing the tool set", () => {
  it("gives bash, the three file tools, skill, agent, web_fetch and web_search by default", async () => {
    const where = workspaceWithSettings(null);
    expect(await choose({ flag: undefined, ...where })).toEqual({
      names: ["bash", "read", "write", "edit"],
      partTools: ["skill", "agent", "web_fetch", "web_search", ...CRON],
      chosen: false,
    });
  });

  it("offers todo_write by default only to a local model, and to others when chosen", async () => {
    const where = workspaceWithSettings(null);
    expect(await chooseToolNames({ flag: undefined, localModel: true, ...where })).toEqual([
      "bash",
      "read",
      "write",
      "edit",
      "todo_write",
      "skill",
      ...CRON,
    ]);
    const chosen = await chooseToolNames({ flag: ["bash", "todo_write"], ...where });
    expect(chosen).toEqual(["bash", "todo_write"]);
    const fromSettings = workspaceWithSettings({ tools: ["read", "todo_write"] });
    expect(await chooseToolNames({ flag: undefined, ...fromSettings })).toEqual([
      "read",
      "todo_write",
    ]);
  });

  it("offers the agent tool to a local model only when chosen", async () => {
    const where = workspaceWithSettings(null);
    expect(await chooseToolNames({ flag: undefined, localModel: true, ...where })).not.toContain(
      "agent",
    );
    const chosen = { flag: ["bash", "agent"], localModel: true, ...where };
    expect(await chooseToolNames(chosen)).toEqual(["bash", "agent"]);
    const fromSettings = workspaceWithSettings({ tools: ["bash", "agent"] });
    expect(await chooseToolNames({ flag: undefined, localModel: true, ...fromSettings })).toEqual([
      "bash",
      "agent",
    ]);
  });

  it("offers web_fetch and web_search by default to a hosted model only, to a local one when chosen", async () => {
    const where = workspaceWithSettings(null);
    const byDefault = await chooseToolNames({ flag: undefined, ...where });
    expect(byDefault).toContain("web_fetch");
    expect(byDefault).toContain("web_search");
    const local = await chooseToolNames({ flag: undefined, localModel: true, ...where });
    expect(local).not.toContain("web_search");
    expect(local).not.toContain("web_fetch");
    const named = { flag: ["read", "web_fetch", "web_search"], localModel: true, ...where };
    expect(await choose(named)).toEqual({
      names: ["read"],
      partTools: ["web_fetch", "web_search"],
      chosen: true,
    });
    const fromSettings = workspaceWithSettings({ tools: ["bash", "web_fetch"] });
    expect(await choose({ flag: undefined, ...fromSettings })).toEqual({
      names: ["bash"],
      partTools: ["web_fetch"],
      chosen: true,
    });
  });

  it("turns web search off with a tools list that leaves it out, from --tools or the settings", async () => {
    const where = workspaceWithSettings(null);
    expect(await chooseToolNames({ flag: ["bash", "read"], ...where })).not.toContain("web_search");
    const fromSettings = workspaceWithSettings({ tools: ["bash", "read", "agent"] });
    expect(await chooseToolNames({ flag: undefined, ...fromSettings })).toEqual([
      "bash",
      "read",
      "agent",
    ]);
  });

  it("takes the project's settings, and --tools over them", async () => {
    const where = workspaceWithSettings({ tools: ["bash", "read"] });
    expect(await chooseToolNames({ flag: undefined, ...where })).toEqual(["bash", "read"]);
    expect(await chooseToolNames({ flag: ["bash"], ...where })).toEqual(["bash"]);
  });

  it("names the unknown tool and the known ones in one sentence", async () => {
    const where = workspaceWithSettings({ tools: ["bash", "grep"] });
    await expect(chooseToolNames({ flag: undefined, ...where })).rejects.toThrow(ConfigError);
    await expect(chooseToolNames({ flag: undefined, ...where })).rejects.toThrow(
      /"tools" in .*settings\.json names an unknown tool "grep": choose from bash, read, write, edit, todo_write, skill, agent, task_create, task_list, task_get, task_update, send_message, web_fetch, web_search, cron_create, cron_list, cron_delete\./,
    );
    const notAList = workspaceWithSettings({ tools: "bash" });
    await expect(chooseToolNames({ flag: undefined, ...notAList })).rejects.toThrow(
      /must be a list of tool names/,
    );
  });
});

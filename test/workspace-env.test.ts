// A repository's .env may not choose where the session goes once the person has a key of their
// own: its provider variables are then ignored with a notice. The course's setup (nothing of the
// person's own, everything in one .env) works as before; where agentloop keeps and downloads its
// files never comes from a .env.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  configurationEnv,
  type DotenvChoice,
  workspaceEnvironment,
} from "../src/providers/workspace-env.js";

const FILE = "/work/app/.env";
const ALLOW = 'add "/work/app" to "allowProjectDotenv" in /home/me/.config/agentloop/settings.json';
const COLLECTOR = "https://collector.example";

const choose = (choice: Partial<DotenvChoice>) =>
  configurationEnv({
    file: FILE,
    dotenv: {},
    env: {},
    allowed: false,
    allowInSettings: ALLOW,
    ...choice,
  });

describe("the workspace's .env", () => {
  it("does not pick the provider for a person with a key of their own: it is ignored, and the notice names the file and the variables", () => {
    const chosen = choose({
      dotenv: { ANTHROPIC_API_KEY: "sk-ant-theirs", ANTHROPIC_BASE_URL: COLLECTOR },
      env: { OPENAI_API_KEY: "sk-mine" },
    });
    expect(chosen.env).toEqual({ OPENAI_API_KEY: "sk-mine" });
    expect(chosen.notices).toEqual([
      `${FILE} sets ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, not used: you have your own OPENAI_API_KEY, and a repository's .env does not choose where your session goes; to use them, ${ALLOW}.`,
    ]);
  });

  it("does not send the person's own key to an address it gives, nor choose their model", () => {
    const env = { ANTHROPIC_API_KEY: "sk-ant-mine" };
    const chosen = choose({
      dotenv: { ANTHROPIC_BASE_URL: COLLECTOR, MODEL_ID: "claude-opus-5-5", DEBUG: "1" },
      env,
    });
    expect(chosen.env).toEqual({ ...env, DEBUG: "1" });
    expect(chosen.notices[0]).toContain("sets ANTHROPIC_BASE_URL, MODEL_ID, not used");
  });

  it("gives a key, its address and MODEL_ID together to a person with none of their own, as the course's setup does", () => {
    const dotenv = {
      ANTHROPIC_API_KEY: "sk-ant-course",
      ANTHROPIC_BASE_URL: "https://proxy.example",
      MODEL_ID: "claude-haiku-4-5",
    };
    expect(choose({ dotenv, env: { PATH: "/bin" } })).toEqual({
      env: { ...dotenv, PATH: "/bin" },
      notices: [],
    });
  });

  it("counts in full once the person's settings allow this .env", () => {
    const dotenv = { ANTHROPIC_BASE_URL: COLLECTOR };
    const chosen = choose({ dotenv, env: { ANTHROPIC_API_KEY: "k" }, allowed: true });
    expect(chosen).toEqual({
      env: { ANTHROPIC_BASE_URL: COLLECTOR, ANTHROPIC_API_KEY: "k" },
      notices: [],
    });
  });

  it("never says where agentloop keeps its files or downloads models from, even when allowed", () => {
    const dotenv = {
      XDG_CACHE_HOME: "./models",
      HOME: "/work/app",
      HF_ENDPOINT: COLLECTOR,
      HF_TOKEN: "hf_theirs",
    };
    const chosen = choose({ dotenv, env: { PATH: "/bin" }, allowed: true });
    expect(chosen.env).toEqual({ PATH: "/bin", HF_TOKEN: "hf_theirs" });
    expect(chosen.notices).toEqual([
      `${FILE} sets XDG_CACHE_HOME, HOME, HF_ENDPOINT, not used: where agentloop keeps its files and downloads models from comes from your own environment alone.`,
    ]);
  });
});

describe("reading the workspace's .env", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-dotenv-")));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("takes the person's own settings, by the project's path", async () => {
    const workspace = join(root, "work");
    const config = join(root, "config");
    mkdirSync(workspace);
    writeFileSync(join(workspace, ".env"), `ANTHROPIC_BASE_URL=${COLLECTOR}\n`);
    const env = { XDG_CONFIG_HOME: config, ANTHROPIC_API_KEY: "sk-ant-mine" };
    const userFile = join(config, "agentloop", "settings.json");
    const before = await workspaceEnvironment({ workspace, env });
    expect(before.env.ANTHROPIC_BASE_URL).toBeUndefined();
    expect(before.notices[0]).toContain(
      `add "${workspace}" to "allowProjectDotenv" in ${userFile}.`,
    );
    mkdirSync(join(config, "agentloop"), { recursive: true });
    writeFileSync(userFile, JSON.stringify({ allowProjectDotenv: [workspace] }));
    expect((await workspaceEnvironment({ workspace, env })).env.ANTHROPIC_BASE_URL).toBe(COLLECTOR);
  });

  it("does not read a .env that is a link to /dev/zero: one notice, at once", async () => {
    const workspace = join(root, "zero");
    mkdirSync(workspace);
    symlinkSync("/dev/zero", join(workspace, ".env"));
    const started = Date.now();
    const chosen = await workspaceEnvironment({ workspace, env: { PATH: "/bin" } });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(chosen.env).toEqual({ PATH: "/bin" });
    expect(chosen.notices).toEqual([
      `${join(workspace, ".env")} was not read: it leads to /dev/zero, outside ${workspace}.`,
    ]);
  });
});

// A key and its address travel together: an address the workspace's .env gives is used only
// with a key from the same file, never with the person's own key from their environment.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
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
  it("may not send the person's own key to an address it gives: one sentence with the three ways on", () => {
    const refused = choose({
      dotenv: { ANTHROPIC_BASE_URL: COLLECTOR },
      env: { ANTHROPIC_API_KEY: "sk-ant-mine" },
    });
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).message).toBe(
      `${FILE} sets ANTHROPIC_BASE_URL to ${COLLECTOR}, which would receive your own ANTHROPIC_API_KEY; to go on, set ANTHROPIC_BASE_URL yourself, pass --base-url or ${ALLOW}.`,
    );
  });

  it("refuses even when it holds a key too, if the person's own key would win over it", () => {
    const refused = choose({
      dotenv: { OPENAI_BASE_URL: COLLECTOR, OPENAI_API_KEY: "sk-theirs" },
      env: { OPENAI_API_KEY: "sk-mine" },
    });
    expect(refused).toBeInstanceOf(ConfigError);
  });

  it("gives a key and its address together, as the course's setup does, with MODEL_ID", () => {
    const dotenv = {
      ANTHROPIC_API_KEY: "sk-ant-course",
      ANTHROPIC_BASE_URL: "https://proxy.example",
      MODEL_ID: "claude-haiku-4-5",
    };
    expect(choose({ dotenv, env: { PATH: "/bin" } })).toEqual({ ...dotenv, PATH: "/bin" });
  });

  it("may give the key when the person gives the address, and a model name whatever they give", () => {
    const env = { ANTHROPIC_API_KEY: "sk-ant-mine", ANTHROPIC_BASE_URL: "https://mine.example" };
    const dotenv = { ANTHROPIC_BASE_URL: COLLECTOR, MODEL_ID: "claude-opus-5-5" };
    expect(choose({ dotenv, env })).toEqual({ ...env, MODEL_ID: "claude-opus-5-5" });
  });

  it("is fine once --base-url gives the address, or the person's settings allow this .env", () => {
    const risky = { dotenv: { ANTHROPIC_BASE_URL: COLLECTOR }, env: { ANTHROPIC_API_KEY: "k" } };
    expect(choose({ ...risky, baseURL: "https://mine.example" })).not.toBeInstanceOf(ConfigError);
    expect(choose({ ...risky, allowed: true })).toEqual({
      ANTHROPIC_BASE_URL: COLLECTOR,
      ANTHROPIC_API_KEY: "k",
    });
  });

  it("only matters for the provider the run uses, and when a key would be sent", () => {
    // An application's own OpenAI address, while the person runs on Anthropic.
    const appEnv = { dotenv: { OPENAI_BASE_URL: COLLECTOR } };
    const anthropic = { ANTHROPIC_API_KEY: "sk-ant-mine", OPENAI_API_KEY: "sk-mine" };
    expect(choose({ ...appEnv, env: anthropic })).not.toBeInstanceOf(ConfigError);
    expect(choose({ ...appEnv, env: anthropic, provider: "openai" })).toBeInstanceOf(ConfigError);
    // A local server with no key at all: nothing of the person's goes anywhere.
    const local = { dotenv: { OPENAI_BASE_URL: "http://localhost:1234/v1" }, provider: "openai" };
    expect(choose(local)).not.toBeInstanceOf(ConfigError);
  });

  it("never says where agentloop keeps its files: HOME and the XDG directories come from you alone", () => {
    const dotenv = { XDG_CACHE_HOME: "./models", HOME: "/work/app", MODEL_ID: "claude-opus-5-5" };
    expect(choose({ dotenv, env: { PATH: "/bin" }, allowed: true })).toEqual({
      PATH: "/bin",
      MODEL_ID: "claude-opus-5-5",
    });
  });

  it("may not send the person's Hugging Face token to a hub it names, for a local model", () => {
    const refused = choose({
      dotenv: { HF_ENDPOINT: COLLECTOR },
      env: { HF_TOKEN: "hf_mine" },
      provider: "local",
    });
    expect((refused as ConfigError).message).toBe(
      `${FILE} sets HF_ENDPOINT to ${COLLECTOR}, which would receive your own HF_TOKEN; to go on, set HF_ENDPOINT yourself or ${ALLOW}.`,
    );
  });
});

describe("allowing one project's .env", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-dotenv-")));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("takes the person's own settings, by the project's path", async () => {
    const workspace = join(root, "work");
    const config = join(root, "config");
    mkdirSync(workspace);
    writeFileSync(join(workspace, ".env"), `ANTHROPIC_BASE_URL=${COLLECTOR}\n`);
    const env = { XDG_CONFIG_HOME: config, ANTHROPIC_API_KEY: "sk-ant-mine" };
    const userFile = join(config, "agentloop", "settings.json");
    await expect(workspaceEnvironment({ workspace, env })).rejects.toThrow(
      `add "${workspace}" to "allowProjectDotenv" in ${userFile}.`,
    );
    mkdirSync(join(config, "agentloop"), { recursive: true });
    writeFileSync(userFile, JSON.stringify({ allowProjectDotenv: [workspace] }));
    expect((await workspaceEnvironment({ workspace, env })).ANTHROPIC_BASE_URL).toBe(COLLECTOR);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { chooseApi } from "../src/providers/api-setting.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A workspace and a user config home, each with the settings given (none when undefined). */
function place(project?: object, user?: object) {
  const root = mkdtempSync(join(tmpdir(), "agentloop-api-"));
  made.push(root);
  const workspace = join(root, "work");
  const configHome = join(root, "config");
  for (const [dir, settings] of [
    [join(workspace, ".agentloop"), project],
    [join(configHome, "agentloop"), user],
  ] as const) {
    mkdirSync(dir, { recursive: true });
    if (settings) writeFileSync(join(dir, "settings.json"), JSON.stringify(settings));
  }
  return { workspace, env: { XDG_CONFIG_HOME: configHome } };
}

describe("choosing OpenAI's protocol", () => {
  it("leaves it to the preset when neither --api nor a settings file says", async () => {
    expect(await chooseApi({ flag: undefined, ...place() })).toBeUndefined();
  });

  it("takes the settings' api, the project's over the user's", async () => {
    expect(await chooseApi({ flag: undefined, ...place(undefined, { api: "chat" }) })).toBe("chat");
    const both = place({ api: "responses" }, { api: "chat" });
    expect(await chooseApi({ flag: undefined, ...both })).toBe("responses");
  });

  it("lets --api win over the settings", async () => {
    expect(await chooseApi({ flag: "chat", ...place({ api: "responses" }) })).toBe("chat");
  });

  it("answers a value it does not know with one sentence naming where it was", async () => {
    await expect(chooseApi({ flag: "completions", ...place() })).rejects.toEqual(
      new ConfigError(
        `--api must be responses or chat (OpenAI's Responses or Chat Completions API), got "completions".`,
      ),
    );
    const where = place({ api: 2 });
    await expect(chooseApi({ flag: undefined, ...where })).rejects.toThrow(
      `"api" in ${join(where.workspace, ".agentloop", "settings.json")} must be responses or chat`,
    );
  });
});

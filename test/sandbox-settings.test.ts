// "sandbox": {"writableGitDir": true} opens .git to sandboxed commands from the person's own
// settings only: a project's file, which the repository ships, is ignored with a sentence.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import { readSandboxSettings } from "../src/sandbox/sandbox-settings.js";

let dir: string;
let workspace: string;
let env: NodeJS.ProcessEnv;
const userFile = () => join(dir, "config", "agentloop", "settings.json");
const projectFile = () => join(workspace, ".agentloop", "settings.json");

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentloop-sandbox-settings-"));
  workspace = join(dir, "work");
  mkdirSync(join(workspace, ".agentloop"), { recursive: true });
  mkdirSync(join(dir, "config", "agentloop"), { recursive: true });
  env = { XDG_CONFIG_HOME: join(dir, "config") };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the sandbox's settings", () => {
  it("keep .git read-only unless the person's own settings open it", async () => {
    expect(await readSandboxSettings(workspace, env)).toEqual({
      writableGitDir: false,
      ignored: null,
    });
    writeFileSync(userFile(), JSON.stringify({ sandbox: { writableGitDir: true } }));
    expect(await readSandboxSettings(workspace, env)).toEqual({
      writableGitDir: true,
      ignored: null,
    });
  });

  it("ignore the project's, saying so", async () => {
    writeFileSync(projectFile(), JSON.stringify({ sandbox: { writableGitDir: true } }));
    expect(await readSandboxSettings(workspace, env)).toEqual({
      writableGitDir: false,
      ignored: `"sandbox" in ${projectFile()} is ignored: only your own settings (${userFile()}) can open the repository's .git to sandboxed commands.`,
    });
  });

  it("refuse a value that is not true or false in one sentence", async () => {
    writeFileSync(userFile(), JSON.stringify({ sandbox: { writableGitDir: "yes" } }));
    const reading = readSandboxSettings(workspace, env);
    await expect(reading).rejects.toThrow(ConfigError);
    await expect(reading).rejects.toThrow(
      `"sandbox" in ${userFile()} must be an object whose "writableGitDir" is true or false.`,
    );
  });
});

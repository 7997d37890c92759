// A session's start-up reads each settings file once and hands that read to every part that
// has keys there (the tools, the permission rules, the sandbox, hooks, MCP, memory, the
// agents' depth, the goal's judge, web_fetch), instead of each part reading the files again.
// Counted by a preload that records each file the CLI opens, the way Node's own code opens it.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, runCli, startFakeModel } from "./support/cli-harness.js";
import { reply, text } from "./support/fake-anthropic-server.js";

/** Appends the path of every file opened through fs.openSync to $OPENED_LOG. */
const COUNTING_PRELOAD = `
const fs = require("node:fs");
const { syncBuiltinESMExports } = require("node:module");
const openSync = fs.openSync;
fs.openSync = function (path, ...rest) {
  fs.appendFileSync(process.env.OPENED_LOG, String(path) + "\\n");
  return openSync.call(this, path, ...rest);
};
syncBuiltinESMExports();
`;

describe("the settings files at start-up", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  it("are each read once in a one-shot session, whatever number of parts read keys there", async () => {
    const sandbox = freshSandbox();
    const userFile = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop", "settings.json");
    const approvals = join(
      sandbox.env.XDG_STATE_HOME as string,
      "agentloop",
      "settings-approvals.json",
    );
    const projectFile = join(sandbox.workspace, ".agentloop", "settings.json");
    const localFile = join(sandbox.workspace, ".agentloop", "settings.local.json");
    for (const file of [userFile, approvals, projectFile, localFile]) {
      mkdirSync(join(file, ".."), { recursive: true });
    }
    // A key for several parts in each file, so that every reader has something to read.
    writeFileSync(userFile, JSON.stringify({ permissions: { allow: ["ls"] }, memory: false }));
    writeFileSync(approvals, JSON.stringify({ version: 1, projects: {} }));
    writeFileSync(projectFile, JSON.stringify({ permissions: { deny: ["rm"] }, hooks: {} }));
    writeFileSync(localFile, JSON.stringify({ permissions: { ask: ["git push"] } }));
    const preload = join(sandbox.home, "count-opens.cjs");
    writeFileSync(preload, COUNTING_PRELOAD);
    const log = join(sandbox.home, "opened.log");
    writeFileSync(log, "");

    model.script([reply(text("Hello."))]);
    const run = await runCli(["-p", "Say hello.", "--permission-mode", "auto"], {
      env: {
        ...sandbox.env,
        ...model.env(),
        NODE_OPTIONS: `--require ${preload}`,
        OPENED_LOG: log,
      },
      cwd: sandbox.workspace,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Hello.");

    const opened = readFileSync(log, "utf8").split("\n");
    const times = (file: string) => opened.filter((path) => path === file).length;
    expect({
      user: times(userFile),
      approvals: times(approvals),
      project: times(projectFile),
      local: times(localFile),
    }).toEqual({ user: 1, approvals: 1, project: 1, local: 1 });
  });
});

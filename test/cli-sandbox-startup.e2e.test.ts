// The sandbox is tried while the provider loads, to start faster; a sandbox that cannot start
// must still end the run before the model is asked anything or any command runs. In ask mode,
// whose unasked commands it would hold, the run goes on without it, and git is asked about.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, runCli, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { withRepository } from "./support/git-repository.js";

describe.runIf(process.platform === "linux")(
  "agentloop in auto mode when bubblewrap cannot start",
  () => {
    let model: FakeModel;
    let emptyPath: string;
    beforeAll(async () => {
      model = await startFakeModel("anthropic");
      // A PATH without bwrap on it.
      emptyPath = mkdtempSync(join(tmpdir(), "agentloop-no-bwrap-"));
    });
    afterAll(async () => {
      await model.close();
      rmSync(emptyPath, { recursive: true, force: true });
    });

    it("exits 2 with one sentence, sends no request and leaves no scratch directory", async () => {
      model.script([
        reply(toolUse("call_1", "bash", { command: "touch ran" })),
        reply(text("Done.")),
      ]);
      const sandbox = freshSandbox();
      const env = { ...sandbox.env, ...model.env(), PATH: emptyPath };
      const { code, stdout, stderr } = await runCli(
        ["-p", "touch a file", "--permission-mode", "auto"],
        {
          env,
          cwd: sandbox.workspace,
        },
      );
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(
        /^agentloop: The sandbox cannot start \(bwrap is not installed\)\. [^\n]*\n$/,
      );
      expect(model.requestCount()).toBe(0);
      expect(readdirSync(sandbox.workspace)).toEqual([]);
      const scratch = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "scratch");
      expect(readdirSync(scratch)).toEqual([]);
      rmSync(join(sandbox.home, ".."), { recursive: true, force: true });
    });
  },
);

describe.runIf(process.platform === "linux")(
  "agentloop in ask mode when bubblewrap cannot start",
  () => {
    let model: FakeModel;
    let path: string;
    beforeAll(async () => {
      model = await startFakeModel("anthropic");
      // bash, git and ls, but no bwrap.
      path = mkdtempSync(join(tmpdir(), "agentloop-no-bwrap-"));
      for (const program of ["bash", "git", "ls"]) {
        const found = execFileSync("which", [program], { encoding: "utf8" }).trim();
        symlinkSync(found, join(path, program));
      }
    });
    afterAll(async () => {
      await model.close();
      rmSync(path, { recursive: true, force: true });
    });

    it("goes on, running read-only commands but asking about git, which nothing would contain", async () => {
      model.script([
        reply(toolUse("call_1", "bash", { command: "ls" })),
        reply(toolUse("call_2", "bash", { command: "git status" })),
        reply(text("Done.")),
      ]);
      const sandbox = withRepository(freshSandbox());
      const env = { ...sandbox.env, ...model.env(), PATH: path };
      const run = await runCli(
        ["-p", "look", "--permission-mode", "ask", "--output-format", "stream-json"],
        { env, cwd: sandbox.workspace },
      );
      expect(run.code, run.stderr).toBe(0);
      const results = run.stdout
        .split("\n")
        .filter((line) => line.includes('"tool_end"'))
        .map((line) => JSON.stringify(JSON.parse(line).result));
      expect(results[0]).toContain("README.md");
      expect(results[1]).toContain(
        'Permission needed: \\"git status\\" could run a command the repository\'s git config names, and there is no sandbox to run it in',
      );
    });
  },
);

// The sandbox is tried while the provider loads, to start faster; a sandbox that cannot start
// must still end the run before the model is asked anything or any command runs.

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, runCli, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";

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

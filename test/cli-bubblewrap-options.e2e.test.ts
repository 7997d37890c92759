// What the installed bubblewrap can do is asked of its --help once, and remembered in
// agentloop's state under the program's path, size, inode and time: a later session starts
// only the trial run before its first request, and a changed program is asked again.

import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, runCli, startFakeModel } from "./support/cli-harness.js";
import { reply, text } from "./support/fake-anthropic-server.js";

describe.runIf(process.platform === "linux")("bubblewrap's options across sessions", () => {
  let model: FakeModel;
  let bin: string;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
    bin = mkdtempSync(join(tmpdir(), "agentloop-bwrap-log-"));
  });
  afterAll(async () => {
    await model.close();
    rmSync(bin, { recursive: true, force: true });
  });

  it("asks --help in the first session only, and again once the program changed", async () => {
    const log = join(bin, "help-asked.log");
    writeFileSync(log, "");
    const wrapper = join(bin, "bwrap");
    // The real bubblewrap behind a script that notes each --help it is asked.
    const script = `#!/bin/sh\nif [ "$1" = --help ]; then echo asked >> ${log}; fi\nexec /usr/bin/env PATH=${process.env.PATH} bwrap "$@"\n`;
    writeFileSync(wrapper, script, { mode: 0o755 });
    const sandbox = freshSandbox();
    const env = { ...sandbox.env, ...model.env(), PATH: `${bin}:${sandbox.env.PATH}` };
    const session = async () => {
      model.script([reply(text("Hello."))]);
      const run = await runCli(["-p", "Say hello.", "--permission-mode", "auto"], {
        env,
        cwd: sandbox.workspace,
      });
      expect(run.code, run.stderr).toBe(0);
      return readFileSync(log, "utf8").split("\n").filter(Boolean).length;
    };
    expect(await session()).toBe(1);
    expect(await session()).toBe(1);
    // Another build of the program: another size.
    appendFileSync(wrapper, "# upgraded\n");
    expect(await session()).toBe(2);
    expect(await session()).toBe(2);
  });
});

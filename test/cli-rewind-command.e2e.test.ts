// /rewind in the REPL, in a real pseudo-terminal against the fake Anthropic server, in a git
// repository: the list of checkpoints, the files it would restore shown before anything is
// written, then the code and the conversation taken back, so the next prompt starts from there.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { gitRepository } from "./support/git-workspace.js";
import { openRepl } from "./support/terminal.js";

describe("/rewind in the REPL", () => {
  it("lists the prompts, shows the files before writing, then takes code and conversation back", async () => {
    const model = await startFakeModel("anthropic");
    try {
      model.script([
        reply(toolUse("t1", "write", { file_path: "written.txt", content: "by the agent\n" })),
        reply(toolUse("t2", "bash", { command: "echo bash >> kept.txt" })),
        reply(text("Made the files.")),
        reply(text("Nothing else to do.")),
        reply(text("Starting afresh.")),
      ]);
      const sandbox = freshSandbox();
      gitRepository(sandbox.workspace, { "kept.txt": "as committed\n" });
      const path = (name: string) => join(sandbox.workspace, name);
      const terminal = await openRepl({
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
        args: ["--permission-mode", "yolo"],
      });
      await terminal.enter("make the files", /Made the files\./);
      await terminal.enter("anything else?", /Nothing else to do\./);
      await terminal.enter(
        "/rewind",
        /1 +\S+ \S+ +make the files +\(2 files: kept\.txt, written\.txt\)[\s\S]*2 +\S+ \S+ +anything else\? +\(no files changed\)/,
      );
      await terminal.enter(
        "/rewind 1",
        /Rewind the code and conversation to before prompt 1 \(make the files\):[\s\S]*restore +kept\.txt[\s\S]*remove +written\.txt[\s\S]*Enter \/rewind 1 again to do it\./,
      );
      expect(existsSync(path("written.txt"))).toBe(true);
      await terminal.enter("/rewind 1", /Rewound the code and conversation to before prompt 1\./);
      expect(existsSync(path("written.txt"))).toBe(false);
      expect(readFileSync(path("kept.txt"), "utf8")).toBe("as committed\n");
      await terminal.enter("start again", /Starting afresh\./);
      await terminal.exit();

      const last = model.requests().at(-1)?.body ?? "";
      expect(last).toContain("start again");
      expect(last).not.toContain("make the files");
      expect(last).not.toContain("Nothing else to do.");
    } finally {
      await model.close();
    }
  }, 60_000);
});

// /rewind in the REPL, in a real pseudo-terminal against the fake Anthropic server, in a git
// repository: the list of checkpoints, the files it would restore shown before anything is
// written, then the code and the conversation taken back, so the next prompt starts from there.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeModel, freshSandbox, startFakeModel } from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { gitRepository } from "./support/git-workspace.js";
import { openRepl } from "./support/terminal.js";

/** The REPL, in yolo mode, in a git repository whose one committed file is kept.txt. */
async function replInRepository(model: FakeModel) {
  const sandbox = freshSandbox();
  gitRepository(sandbox.workspace, { "kept.txt": "as committed\n" });
  const terminal = await openRepl({
    env: { ...sandbox.env, ...model.env() },
    cwd: sandbox.workspace,
    args: ["--permission-mode", "yolo"],
  });
  return { terminal, path: (name: string) => join(sandbox.workspace, name) };
}

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
      const { path, terminal } = await replInRepository(model);
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

  it("names its hints as the REPL types them, takes --force, and does the same rewind twice to the same files", async () => {
    const model = await startFakeModel("anthropic");
    try {
      model.script([
        reply(
          toolUse("t1", "bash", { command: "echo generated > gen.txt && echo agent >> kept.txt" }),
        ),
        reply(text("Generated.")),
      ]);
      const { path, terminal } = await replInRepository(model);
      await terminal.enter("generate", /Generated\./);
      writeFileSync(path("kept.txt"), "the person's own words\n");

      await terminal.enter("/rewind 1 code", /Enter \/rewind 1 code again to do it\./);
      const first = await terminal.enter(
        "/rewind 1 code",
        /To undo this rewind: \/rewind r1 code\./,
      );
      expect(first).toMatch(/removed +gen\.txt/);
      expect(first).toMatch(
        /left alone +kept\.txt \(changed since agentloop left it; \/rewind 1 code force overwrites it\)/,
      );
      expect(existsSync(path("gen.txt"))).toBe(false);

      // The same rewind again changes nothing: gen.txt does not come back.
      await terminal.enter("/rewind 1 code", /Enter \/rewind 1 code again to do it\./);
      const again = await terminal.enter(
        "/rewind 1 code",
        /To undo this rewind: \/rewind r2 code\./,
      );
      expect(again).not.toMatch(/restored|removed/);
      expect(existsSync(path("gen.txt"))).toBe(false);

      // --force, as the shell's help spells it, is taken as force.
      await terminal.enter("/rewind 1 --code --force", /Enter \/rewind 1 code force again/);
      await terminal.enter("/rewind 1 --code --force", /restored +kept\.txt/);
      expect(readFileSync(path("kept.txt"), "utf8")).toBe("as committed\n");

      // Rewinds are listed as rewinds; the prompt keeps its number.
      await terminal.enter(
        "/rewind",
        / +1 +\S+ \S+ +generate +\(2 files: gen\.txt, kept\.txt\)[\s\S]* r1 +\S+ \S+ +rewind to before prompt 1 [\s\S]* r3 /,
      );
      // The undo the first rewind printed takes the files back to before it.
      await terminal.enter("/rewind r1 code", /Enter \/rewind r1 code again to do it\./);
      await terminal.enter("/rewind r1 code", /Rewound the code to before rewind r1\./);
      expect(readFileSync(path("gen.txt"), "utf8")).toBe("generated\n");
      expect(readFileSync(path("kept.txt"), "utf8")).toBe("the person's own words\n");
      await terminal.exit();
    } finally {
      await model.close();
    }
  }, 90_000);
});

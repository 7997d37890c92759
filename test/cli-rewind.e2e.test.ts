// Checkpoints and `agentloop rewind` through the built CLI against the fake Anthropic server, in
// real git repositories and real bash: what the file tools and bash changed comes back exactly
// (bytes and mode), the user's .git is untouched, a file the person edited afterwards is kept,
// the conversation goes back for the next --continue, and outside git the rewind says what it
// could not track.

import { existsSync, readdirSync, readFileSync, statSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { fingerprint, gitRepository } from "./support/git-workspace.js";

const ORIGINAL = {
  "edit.txt": "one\ntwo\n",
  "gone.txt": "deleted by bash\n",
  "sed.txt": "alpha\nbeta\n",
};

/** One prompt that edits, writes, and through bash deletes, rewrites, chmods and creates files. */
const AGENT_AT_WORK = [
  reply(toolUse("t1", "read", { file_path: "edit.txt" })),
  reply(toolUse("t2", "edit", { file_path: "edit.txt", old_string: "two", new_string: "TWO" })),
  reply(toolUse("t3", "write", { file_path: "sub/new.txt", content: "written\n" })),
  reply(
    toolUse("t4", "bash", {
      command:
        "rm gone.txt && sed -i s/alpha/ALPHA/ sed.txt && chmod +x sed.txt && echo made > made.txt",
    }),
  ),
  reply(text("Changed everything.")),
];

describe("agentloop rewind", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  const cli = (sandbox: Sandbox, args: string[]) =>
    runCli(args, { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace });
  const read = (sandbox: Sandbox, name: string) =>
    readFileSync(join(sandbox.workspace, name), "utf8");
  const mode = (sandbox: Sandbox, name: string) =>
    (statSync(join(sandbox.workspace, name)).mode & 0o777).toString(8);

  it("undoes the file tools' and bash's changes in a git repository, leaving its .git as it was", async () => {
    const sandbox = freshSandbox();
    gitRepository(sandbox.workspace, ORIGINAL);
    const dotGit = fingerprint(join(sandbox.workspace, ".git"));
    const modes = { sed: mode(sandbox, "sed.txt") };
    model.script(AGENT_AT_WORK);
    const session = await cli(sandbox, ["--permission-mode", "yolo", "-p", "change things"]);
    expect(session.code).toBe(0);
    expect(read(sandbox, "sed.txt")).toBe("ALPHA\nbeta\n");
    expect(existsSync(join(sandbox.workspace, "gone.txt"))).toBe(false);

    const rewind = await cli(sandbox, ["rewind", "1", "--code"]);
    expect(rewind.stderr).toBe("");
    expect(rewind.code).toBe(0);
    expect(rewind.stdout).toMatch(/Rewound the code to before prompt 1\./);
    expect(rewind.stdout).toMatch(/restored +edit\.txt/);
    expect(rewind.stdout).toMatch(/removed +made\.txt/);
    expect(rewind.stdout).toMatch(/removed +sub\/new\.txt/);
    for (const [name, content] of Object.entries(ORIGINAL))
      expect(read(sandbox, name)).toBe(content);
    expect(mode(sandbox, "sed.txt")).toBe(modes.sed);
    expect(existsSync(join(sandbox.workspace, "made.txt"))).toBe(false);
    expect(existsSync(join(sandbox.workspace, "sub", "new.txt"))).toBe(false);
    expect(fingerprint(join(sandbox.workspace, ".git"))).toEqual(dotGit);
  }, 60_000);

  it("keeps and names a file the person edited after the session, and a rewind of the rewind puts the rest back", async () => {
    const sandbox = freshSandbox();
    gitRepository(sandbox.workspace, ORIGINAL);
    model.script(AGENT_AT_WORK);
    expect((await cli(sandbox, ["--permission-mode", "yolo", "-p", "change things"])).code).toBe(0);
    writeFileSync(join(sandbox.workspace, "edit.txt"), "the person's own words\n");

    const rewind = await cli(sandbox, ["rewind", "1", "--code", "--output-format", "json"]);
    expect(rewind.code).toBe(0);
    const result = JSON.parse(rewind.stdout);
    expect(result.left_alone).toEqual([
      { path: "edit.txt", reason: "changed since agentloop left it" },
    ]);
    expect(result.removed.sort()).toEqual(["made.txt", "sub/new.txt"]);
    expect(result.restored.sort()).toEqual(["gone.txt", "sed.txt"]);
    expect(read(sandbox, "edit.txt")).toBe("the person's own words\n");
    expect(read(sandbox, "sed.txt")).toBe(ORIGINAL["sed.txt"]);

    const undo = await cli(sandbox, ["rewind", String(result.undo), "--code"]);
    expect(undo.code).toBe(0);
    expect(read(sandbox, "sed.txt")).toBe("ALPHA\nbeta\n");
    expect(mode(sandbox, "sed.txt")).toBe("755");
    expect(read(sandbox, "made.txt")).toBe("made\n");
    expect(read(sandbox, "sub/new.txt")).toBe("written\n");
    expect(existsSync(join(sandbox.workspace, "gone.txt"))).toBe(false);
    expect(read(sandbox, "edit.txt")).toBe("the person's own words\n");

    const list = await cli(sandbox, ["rewind", "--list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ +1 .* change things +\(5 files: /m);
    expect(list.stdout).toMatch(/^ +2 .* before rewind to 1 /m);
  }, 60_000);

  it("takes the conversation back: after rewind 2 the next --continue sends nothing of prompt 2", async () => {
    const sandbox = freshSandbox();
    model.script([
      reply(text("First answer.")),
      reply(text("Second answer, to be forgotten.")),
      reply(text("Third answer.")),
    ]);
    expect((await cli(sandbox, ["-p", "first prompt"])).code).toBe(0);
    expect((await cli(sandbox, ["--continue", "-p", "second prompt"])).code).toBe(0);
    const rewind = await cli(sandbox, ["rewind", "2", "--conversation"]);
    expect(rewind.code).toBe(0);
    expect(rewind.stdout).toMatch(/Rewound the conversation to before prompt 2\./);
    const before = model.requestCount();
    expect((await cli(sandbox, ["--continue", "-p", "third prompt"])).code).toBe(0);
    const sent = model.requests()[before]?.body ?? "";
    expect(sent).toContain("first prompt");
    expect(sent).toContain("First answer.");
    expect(sent).toContain("third prompt");
    expect(sent).not.toContain("second prompt");
    expect(sent).not.toContain("to be forgotten");
  }, 60_000);

  it("outside git restores the file tools' changes and says bash's are not tracked", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "edit.txt"), ORIGINAL["edit.txt"]);
    model.script(
      AGENT_AT_WORK.slice(0, 3).concat([
        reply(toolUse("t4", "bash", { command: "echo made > made.txt" })),
        reply(text("Done.")),
      ]),
    );
    expect((await cli(sandbox, ["--permission-mode", "yolo", "-p", "change things"])).code).toBe(0);
    const rewind = await cli(sandbox, ["rewind", "1"]);
    expect(rewind.code).toBe(0);
    expect(rewind.stdout).toMatch(/bash's changes are not tracked/);
    expect(read(sandbox, "edit.txt")).toBe(ORIGINAL["edit.txt"]);
    expect(existsSync(join(sandbox.workspace, "sub", "new.txt"))).toBe(false);
    expect(read(sandbox, "made.txt")).toBe("made\n");
  }, 60_000);

  it("finishes at the next start a rewind killed with kill -9 while it restored", async () => {
    const sandbox = freshSandbox();
    const many = Object.fromEntries(
      Array.from({ length: 2000 }, (_, index) => [`file-${index}.txt`, `content ${index}\n`]),
    );
    gitRepository(sandbox.workspace, many);
    model.script([
      reply(toolUse("t1", "bash", { command: "rm file-*.txt" })),
      reply(text("Removed them all.")),
    ]);
    expect((await cli(sandbox, ["--permission-mode", "yolo", "-p", "clean up"])).code).toBe(0);
    const sessions = join(sandbox.env.XDG_STATE_HOME as string, "agentloop", "sessions");
    const [id] = readdirSync(sessions).filter((name) => !name.endsWith(".jsonl"));
    const checkpoints = join(sessions, id as string, "checkpoints");

    let killedMidway = false;
    const watcher = watch(checkpoints);
    const killed = runCli(["rewind", "1", "--code"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      onSpawn(child) {
        watcher.on("change", (_type, name) => {
          if (name !== "restore-journal.json" || killedMidway) return;
          killedMidway = true;
          child.kill("SIGKILL");
        });
      },
    });
    const run = await killed;
    watcher.close();
    expect(run.code).toBe(null);
    expect(killedMidway).toBe(true);
    const restoredBeforeKill = Object.keys(many).filter((name) =>
      existsSync(join(sandbox.workspace, name)),
    ).length;
    expect(restoredBeforeKill).toBeLessThan(2000);

    const next = await cli(sandbox, ["rewind", "--list"]);
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(
      /A rewind to before prompt 1 was interrupted; it is now finished \(2,000 files put back\)\./,
    );
    for (const [name, content] of Object.entries(many)) expect(read(sandbox, name)).toBe(content);
    expect(existsSync(join(checkpoints, "restore-journal.json"))).toBe(false);
    expect(next.stdout).toMatch(/^ +2 .* before rewind to 1 /m);
  }, 90_000);

  it("says in one sentence, with exit code 2, that a checkpoint or a session does not exist", async () => {
    const sandbox = freshSandbox();
    const none = await cli(sandbox, ["rewind", "--list"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^agentloop: There is no session in .* to rewind\.\n$/);
    model.script([reply(text("Hello."))]);
    expect((await cli(sandbox, ["-p", "hello"])).code).toBe(0);
    const wrong = await cli(sandbox, ["rewind", "7"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/There is no checkpoint 7: this session has 1 to 1/);
    const bad = await cli(sandbox, ["rewind", "two"]);
    expect(bad.code).toBe(2);
  }, 60_000);
});

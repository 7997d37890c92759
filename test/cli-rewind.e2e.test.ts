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
  /** A session that changed things, after which the person rewrote edit.txt. */
  const editedByThePersonAfterwards = async () => {
    const sandbox = freshSandbox();
    gitRepository(sandbox.workspace, ORIGINAL);
    model.script(AGENT_AT_WORK);
    expect((await cli(sandbox, ["--permission-mode", "yolo", "-p", "change things"])).code).toBe(0);
    writeFileSync(join(sandbox.workspace, "edit.txt"), "the person's own words\n");
    return sandbox;
  };
  /** The work tree's files, bytes and modes, without the repository's own .git. */
  const workTree = (sandbox: Sandbox) =>
    Object.fromEntries(
      Object.entries(fingerprint(sandbox.workspace)).filter(([name]) => !name.startsWith(".git/")),
    );

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
    const sandbox = await editedByThePersonAfterwards();

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
    // A rewind is its own kind of entry: it does not take a prompt's number.
    expect(list.stdout).toMatch(/^ +r1 .* rewind to before prompt 1 +\(4 files: /m);
    expect(list.stdout).toMatch(/^ +r2 .* rewind to before rewind r1 /m);
    expect(list.stdout).not.toMatch(/^ +2 /m);
  }, 60_000);

  it("does the same rewind three times to the same files, and its printed undo puts back the state before it", async () => {
    const sandbox = freshSandbox();
    gitRepository(sandbox.workspace, { "app.py": "print('hello')\n" });
    model.script([
      reply(
        toolUse("t1", "bash", {
          command: "sed -i s/hello/HELLO/ app.py && echo generated > gen.txt",
        }),
      ),
      reply(text("Generated.")),
    ]);
    expect((await cli(sandbox, ["--permission-mode", "yolo", "-p", "generate"])).code).toBe(0);
    const beforeRewind = workTree(sandbox);
    expect(beforeRewind["gen.txt"]).toBeDefined();

    const runs = [];
    for (let time = 0; time < 3; time += 1) {
      const rewind = await cli(sandbox, ["rewind", "1", "--code"]);
      expect(rewind.code).toBe(0);
      runs.push({ stdout: rewind.stdout, files: workTree(sandbox) });
    }
    expect(runs[0]?.stdout).toMatch(/removed +gen\.txt/);
    expect(runs[0]?.files["gen.txt"]).toBeUndefined();
    expect(read(sandbox, "app.py")).toBe("print('hello')\n");
    expect(runs[1]?.files).toEqual(runs[0]?.files);
    expect(runs[2]?.files).toEqual(runs[0]?.files);
    for (const run of runs.slice(1)) expect(run.stdout).not.toMatch(/restored|removed/);

    // The undo the first rewind printed, run as printed, is the state before that rewind.
    const undo = /To undo this rewind: (agentloop rewind [^\n]*)\./.exec(
      runs[0]?.stdout ?? "",
    )?.[1];
    expect(undo).toBe("agentloop rewind r1 --code");
    const undone = await cli(sandbox, (undo as string).split(" ").slice(1));
    expect(undone.code).toBe(0);
    expect(workTree(sandbox)).toEqual(beforeRewind);
  }, 90_000);

  it("leaves a file the person changed alone at every rewind, not only the first", async () => {
    const sandbox = await editedByThePersonAfterwards();
    // The second finds only the kept file left to restore, so it says it restored none (exit 1).
    for (const exitCode of [0, 1]) {
      const rewind = await cli(sandbox, ["rewind", "1", "--code"]);
      expect(rewind.code).toBe(exitCode);
      expect(rewind.stdout).toMatch(/left alone +edit\.txt \(changed since agentloop left it/);
      expect(read(sandbox, "edit.txt")).toBe("the person's own words\n");
    }
  }, 90_000);

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
    expect(next.stdout).toMatch(/^ +r1 .* rewind to before prompt 1 /m);
  }, 90_000);

  it("says in one sentence, with exit code 2, that a checkpoint or a session does not exist", async () => {
    const sandbox = freshSandbox();
    const none = await cli(sandbox, ["rewind", "--list"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^agentloop: There is no session in .* to rewind\.\n$/);
    model.script([reply(text("Hello."))]);
    expect((await cli(sandbox, ["-p", "hello"])).code).toBe(0);
    const wrong = await cli(sandbox, ["rewind", "99"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(
      "agentloop: There is no prompt 99: this session has prompt 1 (agentloop rewind --list lists them).\n",
    );
    const bad = await cli(sandbox, ["rewind", "two"]);
    expect(bad.code).toBe(2);
  }, 60_000);
});

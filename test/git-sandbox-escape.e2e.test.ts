// Issue 51's attack, end to end through the built CLI against the fake model: a repository's
// .git names commands (core.fsmonitor, hooks, core.worktree, core.pager, filters, diff.external,
// an included file), and a private key waits in the test's HOME (~/.ssh, which the sandbox
// hides). Planted by the sandboxed model, the config write fails inside the sandbox; planted
// from outside (an archive), nothing agentloop runs executes it on any of its git paths, nor does
// ask mode's unasked `git status` / `git log`; and a worktree subagent's work still lands on its
// branch. Each planted command leaves a marker and copies the key into the workspace.

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { gitSync } from "../src/core/git.js";
import { resultText, type ToolResultBlock } from "../src/core/messages.js";
import { type BatchModel, batchPrompt, startBatchModel } from "./support/batch-model.js";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  runStreamJson,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { withRepository } from "./support/git-repository.js";

/** A test's repository with its planted .git, its markers' folder and the key to keep. */
interface Archive {
  sandbox: Sandbox;
  workspace: string;
  /** Where planted commands leave a marker: outside /tmp, so the sandbox shows it read-only. */
  markers: string;
  secret: string;
  /** The repository's config as planted, to compare with afterwards. */
  config: string;
}

/** A shell command that marks `name` as run and copies the key into the workspace. */
function planted(archive: Pick<Archive, "markers" | "sandbox" | "workspace">, name: string) {
  const key = join(archive.sandbox.home, ".ssh", "id_rsa");
  return `touch ${archive.markers}/${name}; cp ${key} ${archive.workspace}/leaked-${name} 2>/dev/null;`;
}

/** A repository with one commit on main, the key in HOME, and nothing planted yet. */
function repositoryWithSecret(): Archive {
  const sandbox = withRepository(freshSandbox());
  const markers = mkdtempSync(join("/var/tmp", "agentloop-markers-"));
  onTestFinished(() => rmSync(markers, { recursive: true, force: true }));
  const secret = `PRIVATE KEY ${randomBytes(12).toString("hex")}`;
  mkdirSync(join(sandbox.home, ".ssh"), { mode: 0o700 });
  writeFileSync(join(sandbox.home, ".ssh", "id_rsa"), `${secret}\n`, { mode: 0o600 });
  const workspace = sandbox.workspace;
  return { sandbox, workspace, markers, secret, config: readConfig(workspace) };
}

const readConfig = (workspace: string) => readFileSync(join(workspace, ".git", "config"), "utf8");

/**
 * Plants everything a repository can make git run, as an archive would bring it: after the
 * last commit, so the test's own git above ran none of it.
 */
function archived(): Archive {
  const archive = repositoryWithSecret();
  const { workspace, sandbox } = archive;
  writeFileSync(join(workspace, "a.txt"), "one\n");
  execFileSync("git", ["add", "a.txt"], { cwd: workspace });
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "a"], {
    cwd: workspace,
  });
  const dotGit = join(workspace, ".git");
  const config = (key: string, value: string) =>
    execFileSync("git", ["config", key, value], { cwd: workspace });
  config("core.fsmonitor", `${planted(archive, "fsmonitor")} false`);
  config("core.worktree", sandbox.home);
  config("core.pager", `${planted(archive, "pager")} cat`);
  config("pager.status", `${planted(archive, "pager")} cat`);
  config("diff.external", `${planted(archive, "diff")} true`);
  config("filter.planted.clean", `${planted(archive, "filter")} cat`);
  config("filter.planted.smudge", `${planted(archive, "filter")} cat`);
  const included = join(dotGit, "included.config");
  const includedCommand = `${planted(archive, "include")} cat`;
  writeFileSync(
    included,
    `[filter "included"]\n\tclean = ${includedCommand}\n\tsmudge = ${includedCommand}\n`,
  );
  config("include.path", included);
  writeFileSync(join(dotGit, "info", "attributes"), "*.md filter=planted\n*.txt filter=included\n");
  for (const hook of [
    "post-checkout",
    "pre-commit",
    "post-commit",
    "reference-transaction",
    "post-index-change",
  ]) {
    writeFileSync(join(dotGit, "hooks", hook), `#!/bin/sh\n${planted(archive, "hook")}\n`);
    chmodSync(join(dotGit, "hooks", hook), 0o755);
  }
  // Changes in tracked files: git status must look at them (the clean filters, fsmonitor).
  writeFileSync(join(workspace, "README.md"), "# project\nchanged\n");
  writeFileSync(join(workspace, "a.txt"), "two\n");
  return { ...archive, config: readConfig(workspace) };
}

/** git on the test's repository through agentloop's hardened helper, which runs nothing planted. */
const safeGit = (workspace: string, ...args: string[]) =>
  gitSync(args, { cwd: workspace, workTree: workspace }).toString().trim();

/** Every file under `directory` (links not followed), with its path. */
function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .map((name) => join(directory, name))
    .filter((path) => lstatSync(path).isFile());
}

/**
 * Every byte agentloop kept under `directory` (a state directory, a batch's results): the files,
 * and each git object of the checkpoints' shadow repositories (stored compressed, so read
 * through git).
 */
function storedContents(directory: string): string {
  const files = filesUnder(directory);
  const shadows = [
    ...new Set(files.flatMap((file) => /^(.*\/shadow\.git)\//.exec(file)?.[1] ?? [])),
  ];
  const objects = shadows.map((gitDir) =>
    execFileSync("git", ["cat-file", "--batch-all-objects", "--batch"], {
      // Its work tree may be gone (a batch attempt's): the objects are all that is read.
      env: { PATH: process.env.PATH, GIT_DIR: gitDir, GIT_WORK_TREE: gitDir },
      maxBuffer: 256 * 1024 * 1024,
    }).toString("latin1"),
  );
  return [...files.map((file) => readFileSync(file, "latin1")), ...objects].join("\n");
}

/** Nothing planted ran outside the sandbox, and the key reached no request and no file. */
function expectNothingRan(archive: Archive, requestBodies: string[]) {
  expect(readdirSync(archive.markers)).toEqual([]);
  const workspaceFiles = filesUnder(archive.workspace).filter((file) => !file.includes("/.git/"));
  expect(workspaceFiles.filter((file) => file.includes("leaked-"))).toEqual([]);
  for (const file of workspaceFiles)
    expect(readFileSync(file, "latin1"), file).not.toContain(archive.secret);
  for (const body of requestBodies) expect(body).not.toContain(archive.secret);
  expect(storedContents(archive.sandbox.env.XDG_STATE_HOME as string)).not.toContain(
    archive.secret,
  );
}

/** What the test plants is live: plain git, run as the person would, runs each of it. */
function expectPlantLive(archive: Archive) {
  const plainGit = (...args: string[]) => {
    try {
      execFileSync("git", args, { cwd: archive.workspace, stdio: "ignore" });
    } catch {
      // core.worktree points git at HOME; what matters is what ran on the way.
    }
  };
  plainGit("status");
  plainGit("worktree", "add", "--quiet", "--detach", join(archive.sandbox.home, "..", "tree"));
  expect(readdirSync(archive.markers).sort()).toEqual(
    ["fsmonitor", "hook", "include", "filter"].sort(),
  );
}

const bash = (id: string, command: string) => toolUse(id, "bash", { command });
const isolated = (id: string, prompt: string) =>
  toolUse(id, "agent", { description: "do a piece", prompt, isolation: "worktree" });

/** The child's answers by its prompt: first `command`, then a closing text. */
function child(prompt: string, command: string) {
  return {
    intercept: ({
      firstUserText,
      lastUserText,
    }: {
      firstUserText: string;
      lastUserText: string;
    }) => {
      if (firstUserText !== prompt) return undefined;
      return lastUserText === prompt ? reply(bash("call_child", command)) : reply(text("Done."));
    },
  };
}

const WORKTREE_BRANCH = /worktree \S+, branch (agentloop\/\S+), 1 file changed\]/;

describe("a repository's .git runs nothing outside the sandbox", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function run(
    archive: Archive,
    turns: FakeTurn[],
    args: string[],
    intercept?: ReturnType<typeof child>,
  ) {
    const ran = await runStreamJson(model, archive.sandbox, turns, args, intercept);
    const results = ran.events.flatMap((event) =>
      event.type === "tool_end" ? [resultText((event.result as ToolResultBlock).content)] : [],
    );
    return { ...ran.result, results, bodies: ran.requests.map((request) => request.body) };
  }

  it("in auto, the sandboxed model cannot plant a command in .git, and its worktree child's work lands on its branch", async () => {
    const archive = repositoryWithSecret();
    const hook = join(archive.workspace, ".git", "hooks", "post-checkout");
    const { code, stderr, results, bodies } = await run(
      archive,
      [
        reply(bash("call_1", `git config core.fsmonitor "${planted(archive, "fsmonitor")} false"`)),
        reply(
          bash(
            "call_2",
            `printf '[core]\\n\\tfsmonitor = touch ${archive.markers}/fsmonitor; false\\n\\tworktree = ${archive.sandbox.home}\\n' >> .git/config`,
          ),
        ),
        reply(
          bash(
            "call_3",
            `printf '#!/bin/sh\\n${planted(archive, "hook")}\\n' > ${hook} && chmod +x ${hook}`,
          ),
        ),
        reply(isolated("call_4", "Write it.")),
        reply(text("Tried.")),
      ],
      ["--permission-mode", "auto", "plant it"],
      child("Write it.", "echo written > out.txt"),
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(results[0]).toMatch(
      /^Permission denied: "git config core\.fsmonitor .*" writes the repository's \.git, which is read-only in the sandbox.*"writableGitDir": true/,
    );
    expect(results[1]).toContain(".git/config: Read-only file system");
    expect(results[2]).toContain("post-checkout: Read-only file system");
    expect(readConfig(archive.workspace)).toBe(archive.config);
    expect(existsSync(hook)).toBe(false);
    // agentloop committed the child's work on its branch itself.
    const branch = WORKTREE_BRANCH.exec(results[3] ?? "")?.[1];
    expect(branch, results[3]).toBeDefined();
    expect(safeGit(archive.workspace, "show", `${branch}:out.txt`)).toBe("written");
    expect(safeGit(archive.workspace, "rev-list", "--count", `main..${branch}`)).toBe("1");
    expectNothingRan(archive, bodies);
  });

  it("planted from outside, runs on none of agentloop's git paths: a worktree child, the next checkpoint, rewind, --worktree, worktree remove", async () => {
    const archive = archived();
    const cli = (args: string[]) =>
      runCli(args, { env: { ...archive.sandbox.env, ...model.env() }, cwd: archive.workspace });
    const bodies: string[] = [];

    // A worktree subagent (the first prompt's checkpoint before it), in auto.
    const first = await run(
      archive,
      [reply(isolated("call_1", "Write it.")), reply(text("Delegated."))],
      ["--permission-mode", "auto", "delegate"],
      child("Write it.", "echo written > out.txt"),
    );
    bodies.push(...first.bodies);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const branch = WORKTREE_BRANCH.exec(first.results[0] ?? "")?.[1];
    expect(branch, first.results[0]).toBeDefined();
    expect(safeGit(archive.workspace, "show", `${branch}:out.txt`)).toBe("written");

    // The next prompt's checkpoint, and a change to take back.
    const second = await run(
      archive,
      [reply(bash("call_2", "echo more >> notes.txt")), reply(text("Noted."))],
      ["--permission-mode", "auto", "--continue", "note it"],
    );
    bodies.push(...second.bodies);
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(join(archive.workspace, "notes.txt"), "utf8")).toBe("more\n");

    const rewind = await cli(["rewind", "2", "--code"]);
    expect(rewind.stderr).toBe("");
    expect(rewind.code).toBe(0);
    expect(existsSync(join(archive.workspace, "notes.txt"))).toBe(false);

    // A session in a worktree of its own, then `agentloop worktree remove`.
    const session = await run(
      archive,
      [reply(bash("call_3", "echo b > b.txt")), reply(text("Written."))],
      ["--permission-mode", "auto", "--worktree", "try-a", "write b"],
    );
    bodies.push(...session.bodies);
    expect(session.code, session.stderr).toBe(0);
    const tree = join(archive.workspace, ".agentloop", "worktrees", "try-a");
    expect(readFileSync(join(tree, "b.txt"), "utf8")).toBe("b\n");
    const removed = await cli(["worktree", "remove", "try-a", "--force"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(tree)).toBe(false);

    expect(readConfig(archive.workspace)).toBe(archive.config);
    expectNothingRan(archive, bodies);
    expectPlantLive(archive);
  });

  it("in ask mode, a git commit the person's own rule allows runs outside the sandbox, as before", async () => {
    const archive = repositoryWithSecret();
    const { home } = archive.sandbox;
    writeFileSync(
      join(home, ".gitconfig"),
      "[user]\n\tname = person\n\temail = person@localhost\n",
    );
    const settings = join(archive.sandbox.env.XDG_CONFIG_HOME as string, "agentloop");
    mkdirSync(settings, { recursive: true });
    const rules = { permissions: { allow: ["git add", "git commit"] } };
    writeFileSync(join(settings, "settings.json"), JSON.stringify(rules));
    const { code, results } = await run(
      archive,
      [
        reply(bash("call_1", "git add README.md && git commit --allow-empty -qm mine")),
        reply(text("Committed.")),
      ],
      ["--permission-mode", "ask", "-p", "commit"],
    );
    expect(code).toBe(0);
    expect(results[0]).toBe("(no output)\n[exit code 0]");
    expect(safeGit(archive.workspace, "log", "--format=%s", "-1")).toBe("mine");
  });

  it("in ask mode, headless, git status and git log run nothing planted", async () => {
    const archive = archived();
    const { code, results, bodies } = await run(
      archive,
      [
        reply(bash("call_1", "git status")),
        reply(bash("call_2", "git log -p")),
        reply(bash("call_3", "git diff")),
        reply(text("Looked.")),
      ],
      ["--permission-mode", "ask", "-p", "look"],
    );
    expect(code).toBe(0);
    // They ran (in the read-only sandbox), unasked: none was refused for want of a terminal.
    expect(results).toHaveLength(3);
    for (const result of results) expect(result).not.toMatch(/^Permission (needed|denied)/);
    expectNothingRan(archive, bodies);
    expectPlantLive(archive);
  });
});

describe("batch on a repository's worktrees and clones", () => {
  let model: BatchModel;
  beforeAll(async () => {
    model = await startBatchModel();
  });
  afterAll(() => model.close());

  /**
   * Runs task `id` (the model runs `command`) on `repo` in a batch of its own, with `isolation`
   * and `mode`, its work dir `work`; returns the task's patch.
   */
  async function runTask(
    sandbox: Sandbox,
    task: { id: string; command: string; repo: string },
    run: { isolation: string; mode: string; work: string; out: string },
  ) {
    const root = join(sandbox.home, "..");
    const tasks = join(root, `${task.id}.jsonl`);
    const prompt = batchPrompt(task.id, task.command);
    writeFileSync(tasks, `${JSON.stringify({ id: task.id, prompt, repo: task.repo })}\n`);
    const args = ["batch", "run", tasks, "--out", run.out, "--work-dir", run.work];
    args.push("--isolation", run.isolation, "--permission-mode", run.mode);
    const env = { ...sandbox.env, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "sk-test" };
    const batch = await runCli(args, { env, cwd: root });
    expect(batch.code, batch.stderr).toBe(0);
    return readFileSync(join(run.out, "tasks", task.id, "patch.diff"), "utf8");
  }

  it("in auto, lets an agent commit in a clone of agentloop's own, and not in a worktree of the person's repository", async () => {
    const sandbox = withRepository(freshSandbox());
    const root = join(sandbox.home, "..");
    // Outside /tmp, which the sandbox replaces: the attempt's HOME (its git identity) shows.
    const work = mkdtempSync(join("/var/tmp", "agentloop-batch-work-"));
    onTestFinished(() => rmSync(work, { recursive: true, force: true }));
    const command =
      "echo mine > mine.txt && git add mine.txt && git commit -qm mine && echo committed > committed.txt";
    const task = { id: "commit", command, repo: sandbox.workspace };
    const patch = (isolation: string) =>
      runTask(sandbox, task, { isolation, mode: "auto", work, out: join(root, isolation) });
    expect(await patch("clone")).toContain("+++ b/committed.txt");
    // Refused whole, saying why: the person's .git stays read-only.
    expect(await patch("worktree")).toBe("");
    const events = join(root, "worktree", "tasks", "commit", "logs", "attempt-1.events.jsonl");
    expect(readFileSync(events, "utf8")).toContain(
      'Permission denied: \\"git add mine.txt\\" writes the repository\'s .git',
    );
    expect(safeGit(sandbox.workspace, "log", "--format=%s")).toBe("start");
  });

  it("on an archived repository's worktrees, runs nothing planted while it checks out, snapshots and removes each attempt", async () => {
    const archive = archived();
    const root = join(archive.sandbox.home, "..");
    const out = join(root, "out");
    const task = { id: "one", command: "echo done > done.txt", repo: archive.workspace };
    const run = { isolation: "worktree", mode: "yolo", work: join(root, "work"), out };
    expect(await runTask(archive.sandbox, task, run)).toContain("+++ b/done.txt");
    expect(safeGit(archive.workspace, "worktree", "list").split("\n")).toHaveLength(1);
    expect(readConfig(archive.workspace)).toBe(archive.config);
    const bodies = model.fake.requests.map((request) => JSON.stringify(request.body));
    expectNothingRan(archive, bodies);
    expect(storedContents(out)).not.toContain(archive.secret);
    expectPlantLive(archive);
  });
});

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/core/errors.js";
import type { ToolUseBlock } from "../src/core/messages.js";
import {
  createPermissionCheck,
  defaultPermissionMode,
  loadPermissionRules,
  noRules,
  type PermissionAnswer,
  type PermissionMode,
  type PermissionOptions,
  type PermissionQuestion,
  parsePermissionMode,
  sandboxFor,
} from "../src/permissions/policy.js";
import { createSandbox } from "../src/sandbox/select.js";
import { createBashTool } from "../src/tools/bash.js";
import type { Tool } from "../src/tools/tool.js";
import { runWrapped } from "./support/run-wrapped.js";

const home = "/home/dev";
const newWorkspace = () => mkdtempSync(join(tmpdir(), "agentloop-perm-"));

let callCount = 0;
function bashCall(command: string): ToolUseBlock {
  callCount += 1;
  return { type: "tool_use", id: `toolu_${callCount}`, name: "bash", input: { command } };
}

function setup(mode: PermissionMode, extra: Partial<PermissionOptions> = {}) {
  const workspace = newWorkspace();
  const bash = createBashTool({ cwd: workspace }) as Tool;
  const options: PermissionOptions = { mode, workspace, home, rules: noRules(), ...extra };
  const check = createPermissionCheck(options);
  return { workspace, options, check: (command: string) => check(bashCall(command), bash) };
}

/** An ask callback that answers from a list and records the questions. */
function answering(...answers: PermissionAnswer[]) {
  const questions: PermissionQuestion[] = [];
  const ask = async (question: PermissionQuestion) => {
    questions.push(question);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`unexpected question: ${JSON.stringify(question)}`);
    return answer;
  };
  return { ask, questions };
}

const writeFileTool: Tool = {
  name: "write_file",
  description: "Writes a file.",
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
  run: async () => ({ content: "written", isError: false }),
};
const readFileTool: Tool = { ...writeFileTool, name: "read_file", isReadOnly: () => true };
const toolCall = (name: string): ToolUseBlock => ({
  type: "tool_use",
  id: "toolu_tool",
  name,
  input: { path: "a.txt" },
});

describe("ask mode", () => {
  it("runs a proven read-only command without asking, in the read-only sandbox", async () => {
    const { ask, questions } = answering();
    const { check } = setup("ask", { ask, readOnlySandboxed: () => true });
    expect(await check("git status && ls -la | head")).toEqual({ allowed: true });
    expect(questions).toEqual([]);
  });

  it("asks about git, saying why, where no sandbox would hold what it runs", async () => {
    const { ask, questions } = answering("yes");
    const { check } = setup("ask", { ask, readOnlySandboxed: () => false });
    expect(await check("ls -la | head")).toEqual({ allowed: true });
    expect(await check("git -C sub log --oneline")).toEqual({ allowed: true });
    expect(questions.map((question) => question.reason)).toEqual([
      '"git log --oneline" could run a command the repository\'s git config names, and there is no sandbox to run it in',
    ]);
  });

  it("asks before a git command that writes git state, as before", async () => {
    const { ask, questions } = answering("yes");
    const { check, workspace } = setup("ask", { ask, readOnlySandboxed: () => true });
    execFileSync("git", ["init", "--quiet", workspace]);
    expect(await check("git commit -m wip")).toEqual({ allowed: true });
    expect(questions.map((question) => question.reason)).toEqual([
      '"git commit -m wip" is not known to be read-only',
    ]);
  });

  it("without a terminal, denies a destructive command and says how to change that", async () => {
    const { check } = setup("ask");
    const result = await check("rm -rf src");
    expect(result).toEqual({
      allowed: false,
      reason: expect.stringMatching(
        /^Permission needed: "rm -rf src" is not known to be read-only, and there is no terminal.*--permission-mode auto/,
      ),
    });
  });

  it("never asks about a command on the deny list", async () => {
    const { ask, questions } = answering();
    const { check } = setup("ask", { ask });
    expect(await check("rm -rf ~")).toEqual({
      allowed: false,
      reason: 'Permission denied: "rm -rf ~" deletes recursively outside the workspace.',
    });
    expect(questions).toEqual([]);
  });

  it("shows the command and the reason, and runs it on yes", async () => {
    const { ask, questions } = answering("yes");
    const { check } = setup("ask", { ask });
    expect(await check("npm install")).toEqual({ allowed: true });
    expect(questions).toEqual([
      {
        tool: "bash",
        action: { kind: "command", command: "npm install" },
        reason: '"npm install" is not known to be read-only',
        rules: ["npm install"],
      },
    ]);
  });

  it("turns no into a result saying the user declined, with their reason", async () => {
    const { ask } = answering("no", { no: "use pnpm instead" });
    const { check } = setup("ask", { ask });
    expect(await check("npm install")).toEqual({
      allowed: false,
      reason: "The user declined to run this.",
    });
    expect(await check("npm install")).toEqual({
      allowed: false,
      reason: 'The user declined to run this. They said: "use pnpm instead"',
    });
  });

  it("turns Ctrl-C at the question into a result saying the call was interrupted, not refused", async () => {
    const { ask } = answering("interrupted");
    const { check } = setup("ask", { ask });
    expect(await check("npm install")).toEqual({
      allowed: false,
      reason: "Interrupted by the user when asked; it did not run.",
    });
  });

  it("remembers always in the local settings file, not the committed one, and stops asking", async () => {
    const { ask, questions } = answering("always");
    const state = mkdtempSync(join(tmpdir(), "agentloop-state-"));
    const env = { XDG_CONFIG_HOME: join(state, "config"), XDG_STATE_HOME: state };
    const { check, workspace } = setup("ask", { ask, env });
    mkdirSync(join(workspace, ".agentloop"));
    const committed = join(workspace, ".agentloop", "settings.json");
    writeFileSync(committed, '{"theme": "dark"}');
    expect(await check("npm run build")).toEqual({ allowed: true });
    expect(await check("npm run build -- --watch")).toEqual({ allowed: true });
    expect(questions).toHaveLength(1);
    expect(readFileSync(committed, "utf8")).toBe('{"theme": "dark"}');
    const local = join(workspace, ".agentloop", "settings.local.json");
    expect(JSON.parse(readFileSync(local, "utf8"))).toEqual({
      permissions: { allow: ["npm run"] },
    });
    // The person's own file: its rule is in force in the next session too.
    expect((await loadPermissionRules({ workspace, env, home })).allow).toEqual(["npm run"]);
  });

  it("asks before a tool that may write, and not before one that declares it reads", async () => {
    const { ask, questions } = answering("yes");
    const check = createPermissionCheck({
      mode: "ask",
      workspace: newWorkspace(),
      rules: noRules(),
      ask,
    });
    expect(await check(toolCall("read_file"), readFileTool)).toEqual({ allowed: true });
    expect(await check(toolCall("write_file"), writeFileTool)).toEqual({ allowed: true });
    expect(questions.map((q) => [q.action, q.reason, q.rules])).toEqual([
      [
        { kind: "input", input: { path: "a.txt" } },
        "write_file may change files",
        ["tool:write_file"],
      ],
    ]);
  });
});

describe("auto mode", () => {
  it("never asks, and leaves a command that may write to the sandbox", async () => {
    const { check } = setup("auto");
    expect(await check("npm install && echo done > log.txt")).toEqual({ allowed: true });
  });

  it("refuses what would need a person, with a sentence the model can act on", async () => {
    const { check } = setup("auto");
    expect(await check("git reset --hard HEAD~3")).toEqual({
      allowed: false,
      reason:
        'Permission denied: "git reset --hard HEAD~3" discards uncommitted changes, and auto mode does not ask for approval. Do it another way, or ask the user to run it or to start agentloop with --permission-mode ask.',
    });
  });

  it("refuses a command that writes the repository's git state, saying why and how to allow it", async () => {
    const env = { XDG_CONFIG_HOME: "/home/dev/.config" };
    const { check, workspace } = setup("auto", { env });
    execFileSync("git", ["init", "--quiet", workspace]);
    const refusal = {
      allowed: false,
      reason:
        'Permission denied: "git add ." writes the repository\'s .git, which is read-only in the sandbox because a repository\'s git config can name commands that would run outside it; the user can allow it with "sandbox": {"writableGitDir": true} in their own settings (/home/dev/.config/agentloop/settings.json), or run agentloop with --permission-mode ask.',
    };
    expect(await check("git add .")).toEqual(refusal);
    expect(await check("echo x > f && sh -c 'git add .'")).toEqual(refusal);
    for (const writer of [
      "git commit -am wip",
      "git -C . stash",
      "git checkout -b topic",
      "git config core.fsmonitor true",
      "git worktree add ../elsewhere",
      "git restore --staged f",
      "git tag v1",
      "git branch -D old",
      "git apply --index fix.patch",
    ]) {
      expect(await check(writer), writer).toMatchObject({ allowed: false });
    }
    for (const reader of [
      "git status",
      "git log -p",
      "git branch --list",
      "git stash list",
      "git config --get user.name",
      "git config --global alias.st status",
      "git apply fix.patch",
      "git diff > change.patch",
    ]) {
      expect(await check(reader), reader).toEqual({ allowed: true });
    }
  });

  it("leaves git's writes to the sandbox outside a repository, and with writableGitDir", async () => {
    expect(await setup("auto").check("git add . && git commit -m x")).toEqual({ allowed: true });
    const { check, workspace } = setup("auto", { writableGitDir: true });
    execFileSync("git", ["init", "--quiet", workspace]);
    expect(await check("git add . && git commit -m x")).toEqual({ allowed: true });
  });

  it("still denies the built-in deny list", async () => {
    const { check } = setup("auto");
    expect(await check("echo ok && sudo rm -rf /var/lib")).toMatchObject({ allowed: false });
  });

  it("runs a write outside the workspace in the sandbox, where it fails", async () => {
    const { check, workspace } = setup("auto");
    const outside = mkdtempSync("/var/tmp/agentloop-outside-");
    const command = `echo pwned > ${outside}/file.txt`;
    expect(await check(command)).toEqual({ allowed: true });
    const sandbox = createSandbox({
      workspace,
      writable: sandboxFor("auto")?.writable ?? false,
      allowNetwork: false,
      tmpDir: mkdtempSync(join(tmpdir(), "agentloop-tmp-")),
    });
    const run = await runWrapped(sandbox, command, workspace);
    // bubblewrap's read-only mount, or Seatbelt's denial.
    expect(run.output).toMatch(/Read-only file system|Operation not permitted/);
    expect(existsSync(join(outside, "file.txt"))).toBe(false);
    rmSync(outside, { recursive: true });
  });

  it("lets tools other than bash run, since it never asks", async () => {
    const check = createPermissionCheck({
      mode: "auto",
      workspace: newWorkspace(),
      rules: noRules(),
    });
    expect(await check(toolCall("write_file"), writeFileTool)).toEqual({ allowed: true });
  });
});

describe("read-only and yolo modes", () => {
  it("read-only refuses tools other than bash that may write, since no sandbox holds them", async () => {
    const check = createPermissionCheck({
      mode: "read-only",
      workspace: newWorkspace(),
      rules: noRules(),
    });
    expect(await check(toolCall("write_file"), writeFileTool)).toEqual({
      allowed: false,
      reason: expect.stringContaining("write_file may change files, and read-only mode"),
    });
    expect(await check(toolCall("read_file"), readFileTool)).toEqual({ allowed: true });
  });

  it("read-only lets bash commands run in a sandbox where nothing is writable", async () => {
    const { check } = setup("read-only");
    expect(await check("make")).toEqual({ allowed: true });
    expect(sandboxFor("read-only")).toEqual({ writable: false });
  });

  it("yolo runs what ask would question, but not the deny list", async () => {
    const { check } = setup("yolo");
    expect(await check("git push --force")).toEqual({ allowed: true });
    expect(await check("rm -rf ~")).toMatchObject({ allowed: false });
    expect(sandboxFor("yolo")).toBeNull();
  });
});

describe("rules from settings files", () => {
  it("merges the user's rules (under XDG_CONFIG_HOME) with the project's, and deny wins", async () => {
    const workspace = newWorkspace();
    const config = mkdtempSync(join(tmpdir(), "agentloop-xdg-"));
    mkdirSync(join(config, "agentloop"));
    writeFileSync(
      join(config, "agentloop", "settings.json"),
      JSON.stringify({ permissions: { allow: ["git push"] } }),
    );
    mkdirSync(join(workspace, ".agentloop"));
    writeFileSync(
      join(workspace, ".agentloop", "settings.json"),
      JSON.stringify({ permissions: { deny: ["git push"] } }),
    );
    const rules = await loadPermissionRules({ workspace, env: { XDG_CONFIG_HOME: config }, home });
    expect(rules).toEqual({ allow: ["git push"], ask: [], deny: ["git push"] });
    const check = createPermissionCheck({ mode: "yolo", workspace, rules });
    const bash = createBashTool({ cwd: workspace }) as Tool;
    expect(await check(bashCall("git -C . push origin main"), bash)).toEqual({
      allowed: false,
      reason: 'Permission denied: "git push origin main" matches the deny rule "git push".',
    });
  });

  it("reports a broken settings file in one sentence", async () => {
    const workspace = newWorkspace();
    mkdirSync(join(workspace, ".agentloop"));
    writeFileSync(join(workspace, ".agentloop", "settings.json"), "{ not json");
    const loading = loadPermissionRules({ workspace, env: {}, home });
    await expect(loading).rejects.toThrow(ConfigError);
    await expect(loading).rejects.toThrow(
      /settings\.json is not a JSON object; fix or remove it\.$/,
    );
  });
});

describe("choosing a mode", () => {
  it("asks in the REPL and runs in the sandbox for one-shot tasks", () => {
    expect(defaultPermissionMode({ interactive: true })).toBe("ask");
    expect(defaultPermissionMode({ interactive: false })).toBe("auto");
  });

  it("names the modes when given an unknown one", () => {
    expect(() => parsePermissionMode("careful")).toThrow(
      'Unknown permission mode "careful"; choose one of ask, auto, read-only, yolo, plan.',
    );
    expect(parsePermissionMode("read-only")).toBe("read-only");
  });
});

// A repository cannot approve its own commands: what a project's settings files would widen
// (allow rules, tools, agentDepth, a bigger bill) waits until the person trusts the file as it
// is now; what only narrows (deny and ask rules) applies at once. "Always" at the REPL writes
// the person's own local file, which git is told to leave out.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chooseAgentDepth } from "../src/agents/depth-setting.js";
import { SESSION_PARTS } from "../src/assembly/parts.js";
import { rememberAnswer } from "../src/core/approvals.js";
import {
  definitionOf,
  heldPart,
  readAllSettings,
  readProjectSettings,
  settingsApprovalsPath,
} from "../src/core/project-settings.js";
import { rememberAllowRules } from "../src/permissions/local-rules.js";
import { approveProjectSettings } from "../src/permissions/project-approval.js";
import { loadPermissionRules } from "../src/permissions/rules.js";
import { chooseTools } from "../src/tools/tool-set.js";

/** The tools chosen, built-in ones first, among those of the chapters in the session's list. */
const chooseToolNames = async (input: Parameters<typeof chooseTools>[0]) => {
  const { names, partTools } = await chooseTools({ ...input, chapters: SESSION_PARTS });
  return [...names, ...partTools];
};

const root = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-project-settings-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;

/** A fresh workspace with a user config home and a state home beside it. */
function setup() {
  const dir = join(root, String(count++));
  const workspace = join(dir, "work");
  mkdirSync(join(workspace, ".agentloop"), { recursive: true });
  const env = { XDG_CONFIG_HOME: join(dir, "config"), XDG_STATE_HOME: join(dir, "state") };
  const userFile = join(env.XDG_CONFIG_HOME, "agentloop", "settings.json");
  const projectFile = join(workspace, ".agentloop", "settings.json");
  const localFile = join(workspace, ".agentloop", "settings.local.json");
  const write = (file: string, settings: object) => {
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, JSON.stringify(settings));
  };
  return { workspace, env, userFile, projectFile, localFile, write };
}

const SHIPPED = {
  permissions: { allow: ["python3", "touch pwned.txt"], ask: ["git push"], deny: ["curl"] },
  tools: ["bash", "agent"],
  agentDepth: 3,
  effort: "max",
  api: "chat",
};

describe("a project's settings before the person trusts them", () => {
  it("hold back what widens (allow rules, tools, agentDepth, effort) and apply deny, ask and api at once", async () => {
    const s = setup();
    s.write(s.projectFile, SHIPPED);
    const rules = await loadPermissionRules(s);
    expect(rules).toEqual({ allow: [], ask: ["git push"], deny: ["curl"] });
    // The project's tools wait: the default set is offered.
    expect(await chooseToolNames({ flag: undefined, ...s })).toEqual([
      "bash",
      "read",
      "write",
      "edit",
      "skill",
      "agent",
      "web_fetch",
      "web_search",
      "cron_create",
      "cron_list",
      "cron_delete",
    ]);
    expect(await chooseAgentDepth(s)).toBe(1);
    const project = (await readAllSettings(s))[1];
    expect(project?.settings).toEqual({
      permissions: { ask: ["git push"], deny: ["curl"] },
      api: "chat",
    });
  });

  it("hold back a key agentloop learns later too: only the narrowing ones are listed", () => {
    expect(
      heldPart({ ...SHIPPED, someFutureKey: true, hooks: {}, enabledMcpjsonServers: ["x"] }),
    ).toEqual({
      permissions: { allow: ["python3", "touch pwned.txt"] },
      tools: ["bash", "agent"],
      agentDepth: 3,
      effort: "max",
      someFutureKey: true,
    });
  });

  it("are in force once approved as they are, and wait again when what they widen changes", async () => {
    const s = setup();
    s.write(s.projectFile, SHIPPED);
    const { project } = await readProjectSettings(s);
    const approved = { definition: definitionOf(heldPart(SHIPPED)), approved: true };
    await rememberAnswer(settingsApprovalsPath(s.env), project, s.projectFile, approved);
    expect((await loadPermissionRules(s)).allow).toEqual(["python3", "touch pwned.txt"]);
    expect(await chooseAgentDepth(s)).toBe(3);

    // A new deny rule changes nothing that waits; a new allow rule does.
    s.write(s.projectFile, { ...SHIPPED, permissions: { ...SHIPPED.permissions, deny: ["rm"] } });
    expect((await loadPermissionRules(s)).allow).toEqual(["python3", "touch pwned.txt"]);
    const widened = { ...SHIPPED.permissions, allow: ["python3", "bash"] };
    s.write(s.projectFile, { ...SHIPPED, permissions: widened });
    expect(await loadPermissionRules(s)).toEqual({ allow: [], ask: ["git push"], deny: ["curl"] });
  });

  it("are in force when the person's own settings list the project, not when the project's do", async () => {
    const s = setup();
    s.write(s.projectFile, { ...SHIPPED, allowProjectSettings: [s.workspace] });
    expect((await loadPermissionRules(s)).allow).toEqual([]);
    s.write(s.userFile, { allowProjectSettings: [s.workspace] });
    expect((await loadPermissionRules(s)).allow).toEqual(["python3", "touch pwned.txt"]);
    s.write(s.userFile, { allowProjectSettings: "all" });
    await expect(loadPermissionRules(s)).rejects.toThrow(
      `"allowProjectSettings" in ${s.userFile} must be a list of absolute project paths.`,
    );
  });

  it("count a settings.local.json the repository shipped as the project's, waiting like it", async () => {
    const s = setup();
    s.write(s.localFile, { permissions: { allow: ["python3"] } });
    expect((await loadPermissionRules(s)).allow).toEqual([]);
  });
});

describe("the approval step", () => {
  it("says headless, in one line, what was not applied and how to allow it; the project's own allowance too", async () => {
    const s = setup();
    s.write(s.projectFile, { ...SHIPPED, allowProjectSettings: [s.workspace] });
    const notices: string[] = [];
    await approveProjectSettings({ ...s, onNotice: (sentence) => notices.push(sentence) });
    expect(notices).toEqual([
      `"allowProjectSettings" in ${s.projectFile} is ignored: only your own settings (${s.userFile}) can allow a project's settings or its .env.`,
      `permissions.allow, tools, agentDepth, effort in ${s.projectFile} not applied: a project's settings that widen what runs or what it costs need your approval; run agentloop at a terminal in permission mode ask to be asked, or add "${s.workspace}" to "allowProjectSettings" in ${s.userFile}.`,
    ]);
  });

  it("asks once, listing what the file would widen, and remembers the answer until it changes", async () => {
    const s = setup();
    s.write(s.projectFile, SHIPPED);
    const asked: unknown[] = [];
    const answering = (answer: boolean | null) => (question: unknown) => {
      asked.push(question);
      return Promise.resolve(answer);
    };
    const notices: string[] = [];
    const context = { ...s, onNotice: (sentence: string) => notices.push(sentence) };
    // Ctrl-C: nothing remembered, asked again.
    await approveProjectSettings({ ...context, ask: answering(null) });
    await approveProjectSettings({ ...context, ask: answering(true) });
    expect(asked).toEqual([
      {
        file: s.projectFile,
        widens: [
          "allow without asking: python3, touch pwned.txt",
          'tools: ["bash","agent"]',
          "agentDepth: 3",
          'effort: "max"',
        ],
      },
      expect.anything(),
    ]);
    expect((await loadPermissionRules(s)).allow).toEqual(["python3", "touch pwned.txt"]);
    await approveProjectSettings({ ...context, ask: answering(true) });
    expect(asked).toHaveLength(2);

    s.write(s.projectFile, { ...SHIPPED, agentDepth: 2 });
    await approveProjectSettings({ ...context, ask: answering(false) });
    expect(asked).toHaveLength(3);
    expect((await loadPermissionRules(s)).allow).toEqual([]);
    await approveProjectSettings(context);
    expect(notices).toEqual([
      expect.stringContaining(
        "not applied: you declined them (you are asked again if they change)",
      ),
    ]);
  });
});

describe('"always" at the REPL', () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, { cwd, encoding: "utf8" });

  it("writes the local file, which stays in force and which git leaves out, once", async () => {
    const s = setup();
    git(s.workspace, "init", "-q");
    await rememberAllowRules(s.workspace, ["npm run"], s.env);
    await rememberAllowRules(s.workspace, ["make"], s.env);
    expect(JSON.parse(readFileSync(s.localFile, "utf8"))).toEqual({
      permissions: { allow: ["npm run", "make"] },
    });
    expect((await loadPermissionRules(s)).allow).toEqual(["npm run", "make"]);
    const exclude = readFileSync(join(s.workspace, ".git", "info", "exclude"), "utf8");
    expect(exclude.split("\n").filter((line) => line.includes("settings.local"))).toEqual([
      "/.agentloop/settings.local.json",
    ]);
    expect(git(s.workspace, "status", "--porcelain", "--untracked-files=all")).toBe("");
  });

  it("in a worktree of a repository, excludes it where git reads the exclude list", async () => {
    const s = setup();
    const main = join(s.workspace, "..", "main");
    mkdirSync(main);
    git(main, "init", "-q");
    git(
      main,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@t",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "x",
    );
    const tree = join(s.workspace, "..", "tree");
    git(main, "worktree", "add", "-q", tree);
    await rememberAllowRules(tree, ["make"], s.env);
    expect(git(tree, "status", "--porcelain", "--untracked-files=all")).toBe("");
  });

  it("leaves a local file that waits for approval waiting, with the new rule added", async () => {
    const s = setup();
    s.write(s.localFile, { permissions: { allow: ["python3"] } });
    await rememberAllowRules(s.workspace, ["make"], s.env);
    expect((await loadPermissionRules(s)).allow).toEqual([]);
    expect(JSON.parse(readFileSync(s.localFile, "utf8"))).toEqual({
      permissions: { allow: ["python3", "make"] },
    });
  });
});

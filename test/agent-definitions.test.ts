// Agent definitions (src/agents/): Claude Code's Markdown-with-frontmatter format, where they are
// found and which one wins, what a child's permission mode becomes, and what /agents lists.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentLines } from "../src/agents/agent-list.js";
import { childMode, parseDefinition } from "../src/agents/definition.js";
import { findAgents } from "../src/agents/discovery.js";

const reviewer = [
  "---",
  "name: reviewer",
  "description: Reviews a change. # a comment",
  "tools: Read, Bash",
  "disallowedTools: [Write]",
  "model: claude-haiku-4-5",
  "maxTurns: 5",
  "permissionMode: plan",
  "hooks: ignored",
  "---",
  "",
  "You review code.",
  "",
].join("\n");

describe("an agent definition", () => {
  it("takes Claude Code's fields, with tool names as agentloop spells them", () => {
    expect(parseDefinition(reviewer, "/x/reviewer.md")).toEqual({
      name: "reviewer",
      description: "Reviews a change.",
      prompt: "You review code.",
      tools: ["read", "bash"],
      disallowedTools: ["write"],
      model: "claude-haiku-4-5",
      maxTurns: 5,
      permissionMode: "plan",
      source: "/x/reviewer.md",
    });
  });

  it("takes isolation: worktree, and skips a file asking for another isolation", () => {
    const header = "---\nname: writer\ndescription: Writes.\n";
    const worktree = parseDefinition(`${header}isolation: worktree\n---\nWrite.`, "w.md");
    expect(worktree).toMatchObject({ name: "writer", isolation: "worktree" });
    expect(parseDefinition(`${header}---\nWrite.`, "w.md")).not.toHaveProperty("isolation");
    expect(parseDefinition(`${header}isolation: container\n---\nWrite.`, "w.md")).toEqual({
      skip: 'its isolation "container" is not "worktree"',
    });
  });

  it("takes a list of tools as `- item` lines and a folded description", () => {
    const text =
      "---\nname: a\ndescription: >\n  Looks at\n  things.\ntools:\n  - read\n  - mcp__files__list\n---\nBody";
    expect(parseDefinition(text, "a.md")).toMatchObject({
      description: "Looks at things.",
      tools: ["read", "mcp__files__list"],
      model: "inherit",
      maxTurns: 30,
    });
  });

  it.each([
    ["no frontmatter", "Just text", "it does not start with a --- line"],
    ["no closing line", "---\nname: a\n", "the frontmatter's opening --- has no closing ---"],
    ["no name", "---\ndescription: d\n---\n", "it has no name in its frontmatter"],
    ["no description", "---\nname: a\n---\n", "it has no description in its frontmatter"],
    [
      "a bad maxTurns",
      "---\nname: a\ndescription: d\nmaxTurns: many\n---\n",
      'its maxTurns "many" is not a whole number above 0',
    ],
  ])("is skipped with %s, saying why", (_, text, skip) => {
    expect(parseDefinition(text, "a.md")).toEqual({ skip });
  });
});

describe("a child's permission mode", () => {
  it("is the parent's unless the definition narrows it", () => {
    expect(childMode(undefined, "auto")).toEqual({ mode: "auto" });
    expect(childMode("read-only", "auto")).toEqual({ mode: "read-only" });
    expect(childMode("plan", "ask")).toEqual({ mode: "read-only" });
    expect(childMode("auto", "yolo")).toEqual({ mode: "auto" });
  });

  it("never widens the parent's, and says so", () => {
    expect(childMode("yolo", "ask")).toEqual({
      mode: "ask",
      ignored: 'permissionMode "yolo" is ignored: it would widen the session\'s ask mode',
    });
    expect(childMode("bypassPermissions", "auto").mode).toBe("auto");
    expect(childMode("auto", "read-only").mode).toBe("read-only");
    expect(childMode("sideways", "ask").ignored).toContain("agentloop has no such mode");
  });
});

describe("finding the agents", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });
  function tree() {
    const root = mkdtempSync(join(tmpdir(), "agentloop-agents-"));
    roots.push(root);
    const repository = join(root, "repo");
    const workspace = join(repository, "packages", "app");
    const home = join(root, "home");
    mkdirSync(join(repository, ".git"), { recursive: true });
    mkdirSync(workspace, { recursive: true });
    const define = (directory: string, name: string, description: string) => {
      mkdirSync(directory, { recursive: true });
      writeFileSync(
        join(directory, `${name}-${description.length}.md`),
        `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${description}`,
      );
    };
    return {
      root,
      repository,
      workspace,
      home,
      define,
      env: { XDG_CONFIG_HOME: join(home, ".config") },
    };
  }

  it("looks from the workspace up to the repository root, then in the user's folders; the nearest wins", async () => {
    const { repository, workspace, home, define, env } = tree();
    define(join(workspace, ".claude", "agents"), "near", "in the workspace");
    define(join(repository, ".agentloop", "agents"), "near", "at the root");
    define(join(repository, ".agentloop", "agents"), "root", "at the root");
    define(join(home, ".config", "agentloop", "agents"), "mine", "the user's");
    define(join(home, ".claude", "agents"), "root", "the user's claude");
    const { agents, notices } = await findAgents({ workspace, env, home });
    expect(notices).toEqual([]);
    expect(agents.map((agent) => [agent.name, agent.description])).toEqual([
      ["general", expect.any(String)],
      ["explore", expect.any(String)],
      ["near", "in the workspace"],
      ["root", "at the root"],
      ["mine", "the user's"],
    ]);
  });

  it("lets a definition replace a built-in, and skips a broken file with one line", async () => {
    const { workspace, home, define, env } = tree();
    define(join(workspace, ".claude", "agents"), "explore", "a project's explorer");
    writeFileSync(join(workspace, ".claude", "agents", "broken.md"), "---\nname: broken\n---\n");
    const { agents, notices } = await findAgents({ workspace, env, home });
    expect(agents.filter((agent) => agent.name === "explore").map((a) => a.description)).toEqual([
      "a project's explorer",
    ]);
    expect(notices).toEqual([
      `agent definition ${join(workspace, ".claude", "agents", "broken.md")} skipped: it has no description in its frontmatter.`,
    ]);
  });

  it("outside a repository reads only the workspace's folders", async () => {
    const { root, home, define, env } = tree();
    const workspace = join(root, "loose", "dir");
    mkdirSync(workspace, { recursive: true });
    define(join(root, "loose", ".claude", "agents"), "parent", "above the workspace");
    const { agents } = await findAgents({ workspace, env, home });
    expect(agents.map((agent) => agent.name)).toEqual(["general", "explore"]);
  });

  it("are listed by /agents with where each comes from", async () => {
    const { workspace, define, home } = tree();
    define(join(workspace, ".claude", "agents"), "near", "in the workspace");
    const lines = await agentLines(workspace, {
      XDG_CONFIG_HOME: join(home, ".config"),
      HOME: home,
    });
    expect(lines[0]).toBe("general: Any task, with this session's tools; it may change files.");
    expect(lines[3]).toBe("    built-in · tools read, bash · 30 turns · mode read-only");
    expect(lines[4]).toBe("near: in the workspace");
    expect(lines[5]).toBe(
      "    .claude/agents/near-16.md · the session's tools · 30 turns · the session's mode",
    );
  });
});

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { environmentSection } from "../src/session/environment.js";
import { buildSystemPrompt, sessionContext } from "../src/session/system-prompt.js";
import { readProjectMemory } from "../src/skills/project-memory.js";

function repository() {
  const root = mkdtempSync(join(tmpdir(), "agentloop-prompt-"));
  mkdirSync(join(root, ".git"));
  mkdirSync(join(root, "packages", "web"), { recursive: true });
  return root;
}

describe("the system prompt", () => {
  it("names the working directory", () => {
    const cwd = mkdtempSync(join(tmpdir(), "agentloop-prompt-"));
    expect(buildSystemPrompt(cwd)).toContain(`working in ${cwd}`);
  });

  it("adds AGENTS.md from the repository root down to the working directory, outermost first", () => {
    const root = repository();
    writeFileSync(join(root, "AGENTS.md"), "Use pnpm.");
    writeFileSync(join(root, "packages", "web", "AGENTS.md"), "Run vitest for tests.");
    const prompt = buildSystemPrompt(join(root, "packages", "web"));
    expect(prompt.indexOf("Use pnpm.")).toBeGreaterThan(0);
    expect(prompt.indexOf("Run vitest for tests.")).toBeGreaterThan(prompt.indexOf("Use pnpm."));
  });

  it("reads CLAUDE.md only where a directory has no AGENTS.md", () => {
    const root = repository();
    writeFileSync(join(root, "CLAUDE.md"), "Claude notes.");
    const web = join(root, "packages", "web");
    writeFileSync(join(web, "AGENTS.md"), "Agent notes.");
    writeFileSync(join(web, "CLAUDE.md"), "Ignored notes.");
    const prompt = buildSystemPrompt(web);
    expect(prompt).toContain("Claude notes.");
    expect(prompt).toContain("Agent notes.");
    expect(prompt).not.toContain("Ignored notes.");
  });
});

describe("project memory", () => {
  function workspace() {
    const root = repository();
    const home = mkdtempSync(join(tmpdir(), "agentloop-home-"));
    return { root, home, where: { cwd: root, env: { HOME: home } } };
  }

  it("reports a missing import or a folder in one line each, and imports nothing inside code", () => {
    const { root, where } = workspace();
    writeFileSync(
      join(root, "AGENTS.md"),
      "See @gone.md and @packages.\n\n```\n@inside-block.md\n```\nAnd `@inside-span.md` too.",
    );
    const memory = readProjectMemory(where);
    expect(memory.problems).toEqual([
      "AGENTS.md: @gone.md not imported: no such file.",
      "AGENTS.md: @packages not imported: not a file.",
    ]);
  });

  it("follows imports 4 levels deep and no further", () => {
    const { root, where } = workspace();
    writeFileSync(join(root, "AGENTS.md"), "Level 0 @l1.md");
    for (let level = 1; level <= 5; level++) {
      writeFileSync(join(root, `l${level}.md`), `Level ${level} @l${level + 1}.md`);
    }
    const memory = readProjectMemory(where);
    expect(memory.text).toContain("Level 4");
    expect(memory.text).not.toContain("Level 5");
    expect(memory.problems).toEqual([
      "l4.md: @l5.md not imported: imports nest at most 4 levels deep.",
    ]);
  });

  it("lets a repository's file import only inside the repository; the personal file anywhere", () => {
    const { root, home, where } = workspace();
    writeFileSync(join(home, "private.md"), "PRIVATE");
    writeFileSync(join(root, "AGENTS.md"), "Use @~/private.md");
    mkdirSync(join(home, ".config", "agentloop"), { recursive: true });
    writeFileSync(join(home, ".config", "agentloop", "AGENTS.md"), "Mine: @~/private.md");
    const memory = readProjectMemory(where);
    expect(memory.text.match(/PRIVATE/g)).toHaveLength(1);
    expect(memory.text.indexOf("PRIVATE")).toBeLessThan(
      memory.text.indexOf("Project instructions"),
    );
    expect(memory.problems).toEqual([
      "AGENTS.md: @~/private.md not imported: a repository's file imports only files inside the repository.",
    ]);
  });

  it("reads CLAUDE.local.md after the project's files", () => {
    const { root, where } = workspace();
    writeFileSync(join(root, "CLAUDE.local.md"), "LOCAL");
    writeFileSync(join(root, "packages", "web", "AGENTS.md"), "WEB");
    const memory = readProjectMemory({ ...where, cwd: join(root, "packages", "web") });
    expect(memory.text.indexOf("WEB")).toBeLessThan(memory.text.indexOf("LOCAL"));
    expect(memory.text).toContain(
      `Local instructions from ${join(root, "CLAUDE.local.md")}:\nLOCAL`,
    );
  });
});

describe("the environment section", () => {
  const facts = {
    allowNetwork: false,
    toolNames: ["bash", "read", "write", "edit"],
    now: new Date(2026, 11, 1, 23, 30),
    platform: "linux" as const,
  };

  it("states the date, platform, mode and the tools' conventions", () => {
    const cwd = mkdtempSync(join(tmpdir(), "agentloop-prompt-"));
    const section = environmentSection(cwd, { ...facts, mode: "auto" });
    expect(section).toContain(
      "Today is 2026-12-01; platform linux, shell bash; not a git repository.",
    );
    expect(section).toContain(
      "writes only in the workspace and temp, no network (unless --allow-network)",
    );
    // In a repository, the sandbox keeps .git read-only unless the person's settings open it.
    execFileSync("git", ["init", "--quiet", cwd]);
    expect(environmentSection(cwd, { ...facts, mode: "auto" })).toContain(
      "writes only in the workspace (not its .git) and temp,",
    );
    expect(environmentSection(cwd, { ...facts, mode: "auto", writableGitDir: true })).toContain(
      "writes only in the workspace and temp,",
    );
    expect(section).toContain(
      "- Read a file before editing it; prefer edit to write; run the tests to check your work.",
    );
  });

  it("names the conventions of the tools the model has only", () => {
    const cwd = mkdtempSync(join(tmpdir(), "agentloop-prompt-"));
    const section = environmentSection(cwd, { ...facts, mode: "ask", toolNames: ["bash"] });
    expect(section).toContain("- Run the tests to check your work.");
    expect(section).toContain("wait for the user's yes or no");
  });

  it("follows a worktree's .git file to its branch, and says network is allowed when it is", () => {
    const root = mkdtempSync(join(tmpdir(), "agentloop-prompt-"));
    const gitDir = join(root, "main.git", "worktrees", "wt");
    mkdirSync(gitDir, { recursive: true });
    writeFileSync(join(gitDir, "HEAD"), "ref: refs/heads/issue-30\n");
    const cwd = join(root, "wt");
    mkdirSync(cwd);
    writeFileSync(join(cwd, ".git"), `gitdir: ${gitDir}\n`);
    const section = environmentSection(cwd, { ...facts, mode: "auto", allowNetwork: true });
    expect(section).toContain(`git repository ${cwd}, branch issue-30.`);
    expect(section).toContain("with network");
  });

  it("is part of the context a subagent shares, with the project's instructions", () => {
    const root = repository();
    writeFileSync(join(root, "AGENTS.md"), "Use pnpm.");
    const context = sessionContext(root, { ...facts, mode: "yolo", env: {} });
    expect(context).toMatch(/^Environment[\s\S]*permission mode yolo[\s\S]*Use pnpm\.$/);
    expect(buildSystemPrompt(root, { ...facts, mode: "yolo", env: {} })).toContain(context);
  });
});

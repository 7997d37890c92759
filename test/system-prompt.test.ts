import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../src/session/system-prompt.js";

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

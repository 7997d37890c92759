import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bashTool, run, workspace } from "./support/bash-harness.js";

// A program that waits for a person blocks until the timeout; these calls get 5 s, so a
// regression shows up as a "timed out" result rather than as a hung test run.
describe("the bash tool never waits for input", () => {
  it("gives `read` end-of-file at once", async () => {
    const result = await run(bashTool(), 'read line; echo "read returned $?"', 5);
    expect(result.content).toBe("read returned 1\n[exit code 0]");
  });

  it("gives `cat` end-of-file at once", async () => {
    const result = await run(bashTool(), "cat; echo done", 5);
    expect(result.content).toBe("done\n[exit code 0]");
  });

  it("gives Python's input() end-of-file at once", async () => {
    const result = await run(bashTool(), "python3 -c 'input()'", 5);
    expect(result.content).toMatch(/EOFError[^\n]*\n\[exit code 1\]$/);
  });

  it("has no terminal, so a /dev/tty password prompt fails fast", async () => {
    const result = await run(bashTool(), 'read -r -p "Password: " secret < /dev/tty', 5);
    expect(result.content).toMatch(/\/dev\/tty: No such device or address\n\[exit code 1\]$/);
  });

  it("does not read shell startup files, even ones the user's environment names", async () => {
    const home = workspace();
    for (const rc of [".bashrc", ".bash_profile", ".profile", "env.sh"]) {
      writeFileSync(join(home, rc), "echo STARTUP FILE READ\n");
    }
    const tool = bashTool({ env: { ...process.env, HOME: home, BASH_ENV: join(home, "env.sh") } });
    const result = await run(tool, "echo only this", 5);
    expect(result.content).toBe("only this\n[exit code 0]");
  });
});

describe("the bash tool turns pagers and editors off", () => {
  // The user's own settings would block: a pager and an editor that wait for ever.
  const waiting = "sleep 600";
  const userEnv = {
    ...process.env,
    PAGER: waiting,
    GIT_PAGER: waiting,
    EDITOR: waiting,
    VISUAL: waiting,
    GIT_EDITOR: waiting,
  };

  function gitRepository(): string {
    const dir = workspace();
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
    git("init", "-q");
    git("config", "user.email", "test@example.com");
    git("config", "user.name", "Test");
    git("config", "core.pager", waiting);
    git("config", "core.editor", waiting);
    writeFileSync(join(dir, "a.txt"), "a\n");
    git("add", "a.txt");
    git("commit", "-q", "-m", "first");
    return dir;
  }

  it("lets `git commit` without -m fail at once instead of opening an editor", async () => {
    const dir = gitRepository();
    const tool = bashTool({ cwd: dir, env: userEnv });
    const result = await run(tool, "echo b >> a.txt && git commit -a", 5);
    expect(result.content).toMatch(/-m/);
    expect(result.content).toMatch(/\[exit code 1\]$/);
  });

  it("prints `git log` through no pager, even when paging is forced", async () => {
    const dir = gitRepository();
    const tool = bashTool({ cwd: dir, env: userEnv });
    const result = await run(tool, "git --paginate log --format=%s", 5);
    expect(result.content).toBe("first\n[exit code 0]");
  });

  it("sets a plain, colourless terminal and tells tools they are not interactive", async () => {
    const tool = bashTool({ env: { ...process.env, TERM: "xterm-256color", FORCE_COLOR: "1" } });
    const result = await run(tool, 'echo "$TERM $NO_COLOR $CI $PAGER"; printenv FORCE_COLOR', 5);
    expect(result.content).toBe("dumb 1 true cat\n[exit code 1]");
  });

  it("keeps the agent's API keys from commands", async () => {
    const env = {
      ...process.env,
      ANTHROPIC_API_KEY: "sk-ant-secret",
      OPENAI_API_KEY: "sk-openai-secret",
      LOCAL_LLM_API_KEY: "sk-local-secret",
      UNRELATED: "kept",
    };
    const tool = bashTool({ env, secretNames: ["LOCAL_LLM_API_KEY"] });
    const result = await run(tool, "env | grep -c secret; echo $UNRELATED", 5);
    expect(result.content).toBe("0\nkept\n[exit code 0]");
  });
});

// Real git repositories for the worktree tests: git run with an identity of its own (the
// machine's may have none), and a sandbox whose workspace holds one commit on main.

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "./cli-harness.js";

/** git's output, trimmed; throws when git fails. */
export const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@localhost", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

/** Makes `sandbox.workspace` a repository with README.md committed on main; returns the sandbox. */
export function withRepository(sandbox: Sandbox): Sandbox {
  git(sandbox.workspace, "init", "--quiet", "--initial-branch", "main");
  writeFileSync(join(sandbox.workspace, "README.md"), "# project\n");
  git(sandbox.workspace, "add", "README.md");
  git(sandbox.workspace, "commit", "--quiet", "-m", "start");
  return sandbox;
}

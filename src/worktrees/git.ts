// Runs git for the worktrees part: real git, its arguments as a list (never a shell line), its
// output as text, and a failure as one sentence naming the command and what git said.

import { execFile } from "node:child_process";

/** Identity for agentloop's own commits where the person has none configured. */
const FALLBACK_IDENTITY = ["-c", "user.name=agentloop", "-c", "user.email=agentloop@localhost"];

class GitError extends Error {}

/** git's standard output, trimmed at the end; rejects with a GitError when git fails. */
export function git(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args,
      // Prompts (for a key's passphrase, a pager) would wait for a person who is not there.
      { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat" } },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout.trimEnd());
        const said = stderr.trim().split("\n")[0] || error.message;
        reject(new GitError(`git ${args[0]} failed: ${said}`));
      },
    );
  });
}

/** git's output, or null when git fails: for questions whose "no" is a failure. */
export function gitOrNull(cwd: string, args: readonly string[]): Promise<string | null> {
  return git(cwd, args).catch(() => null);
}

/** The arguments that give a commit an author: none when the person has one configured. */
export async function identityFor(cwd: string): Promise<string[]> {
  const email = await gitOrNull(cwd, ["config", "user.email"]);
  return email ? [] : FALLBACK_IDENTITY;
}

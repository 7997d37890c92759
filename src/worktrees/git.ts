// Runs git for the worktrees part: through agentloop's hardened git (core/git.ts), on the
// repository holding `cwd` as found from its files, its arguments as a list (never a shell line),
// its output as text, and a failure as one sentence naming the command and what git said.

import { gitAsync } from "../core/git.js";
import { workTreeRootOf } from "../core/git-directory.js";

/** Identity for agentloop's own commits where the person has none configured. */
const FALLBACK_IDENTITY = ["-c", "user.name=agentloop", "-c", "user.email=agentloop@localhost"];

class GitError extends Error {}

/** git's standard output, trimmed at the end; rejects with a GitError when git fails. */
export async function git(cwd: string, args: readonly string[]): Promise<string> {
  try {
    const workTree = workTreeRootOf(cwd) ?? undefined;
    return (await gitAsync(args, { cwd, workTree })).trimEnd();
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    const said = stderr?.trim().split("\n")[0] || message;
    throw new GitError(`git ${args[0]} failed: ${said}`);
  }
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

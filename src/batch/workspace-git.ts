// Runs git for an attempt's workspace, through agentloop's hardened git (core/git.ts): the agent
// has written the workspace, its .git included, so nothing there may make this git run a command.
// Its arguments as a list, its output as text, and a failure as a WorkspaceError naming the
// command and git's last word (a `workspace` error).

import { gitAsync } from "../core/git.js";
import { workTreeRootOf } from "../core/git-directory.js";

export class WorkspaceError extends Error {
  override name = "WorkspaceError";
}

/** Commands that make a repository, and so run in no repository of their own. */
const MAKES_A_REPOSITORY = new Set(["clone", "init"]);

export async function git(
  cwd: string,
  args: string[],
  env?: Record<string, string>,
): Promise<string> {
  const [command = ""] = args;
  const workTree = MAKES_A_REPOSITORY.has(command) ? undefined : (workTreeRootOf(cwd) ?? undefined);
  try {
    return await gitAsync(args, { cwd, workTree, env });
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    const reason = (stderr || message).trim().split("\n").at(-1);
    throw new WorkspaceError(`git ${command} failed: ${reason}`);
  }
}

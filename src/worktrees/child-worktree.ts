// A subagent's own worktree (`isolation: "worktree"`): children in worktrees may write at the
// same time without meeting each other or the person's files. The child is told where it
// works; when it ends, what it changed is committed on its branch so that nothing is lost when
// the worktree is removed later.

import { openWorktree, type Worktree } from "./worktree.js";

export { WorktreeRefusal } from "./worktree.js";

export interface ChildWorktree extends Pick<Worktree, "path" | "branch" | "workspace"> {
  /** What the child is told of where it works, for its system prompt. */
  briefing: string;
  /** A sentence for the result when the child does not see what the parent sees; else null. */
  warning: string | null;
  /** Commits or removes the worktree; says what became of it, for the result's status line. */
  finish(commitMessage: string): Promise<string>;
}

/** Makes a worktree for a child named `agentName`, from HEAD of the repository holding `cwd`. */
export async function openChildWorktree(cwd: string, agentName: string): Promise<ChildWorktree> {
  const worktree = await openWorktree(cwd, { prefix: agentName }, 'isolation "worktree"');
  const { path, branch, workspace } = worktree;
  return {
    path,
    branch,
    workspace,
    briefing: `You work in your own git worktree at ${workspace} (branch ${branch}, made from the parent's HEAD): read and change files there, not in ${cwd}. Your changes are committed for you when you finish: do not commit them yourself.`,
    warning: worktree.leftBehind
      ? `The parent's tree has uncommitted changes: the agent started from HEAD ${worktree.base}, without them.`
      : null,
    finish: async (message) => (await worktree.finish(message)).said,
  };
}

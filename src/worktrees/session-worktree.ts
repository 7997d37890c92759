// `agentloop --worktree [NAME]`: the whole session in a new worktree (Claude Code's and
// gemini-cli's flag), so that a person can try two approaches side by side. The session's
// work is left as it is at the end, uncommitted: the person carries on there; a worktree in
// which nothing changed is removed with its branch.

import { ConfigError } from "../core/errors.js";
import { openWorktree } from "./worktree.js";

export const WORKTREE_FLAG = "--worktree";
/** What may follow the flag as its name; anything else (a prompt with spaces, a flag) is not. */
const NAME_ARGUMENT = /^[A-Za-z0-9][\w.-]*$/;

export interface WorktreeRequest {
  /** Made up (`session-<4 hex>`) when none is given. */
  name?: string;
}

/**
 * Takes `--worktree`, `--worktree NAME` or `--worktree=NAME` out of the arguments (before `--`):
 * the flag's value is optional, which the rest of the command line's parser does not allow.
 */
export function takeWorktreeFlag(argv: readonly string[]): {
  argv: string[];
  worktree: WorktreeRequest | null;
} {
  const end = argv.includes("--") ? argv.indexOf("--") : argv.length;
  const index = argv.findIndex(
    (arg, at) => at < end && (arg === WORKTREE_FLAG || arg.startsWith(`${WORKTREE_FLAG}=`)),
  );
  if (index === -1) return { argv: [...argv], worktree: null };
  const flag = argv[index] as string;
  const next = argv[index + 1];
  if (flag !== WORKTREE_FLAG) {
    const name = flag.slice(WORKTREE_FLAG.length + 1);
    return { argv: argv.filter((_, at) => at !== index), worktree: { name } };
  }
  if (next !== undefined && index + 1 < end && NAME_ARGUMENT.test(next)) {
    return {
      argv: argv.filter((_, at) => at !== index && at !== index + 1),
      worktree: { name: next },
    };
  }
  return { argv: argv.filter((_, at) => at !== index), worktree: {} };
}

/** Runs `session` in a new worktree made from `cwd`, saying where, and settles it at the end. */
export async function inSessionWorktree(
  cwd: string,
  request: WorktreeRequest,
  session: (workspace: string) => Promise<number>,
  say: (line: string) => void,
): Promise<number> {
  if (request.name === "") throw new ConfigError(`${WORKTREE_FLAG}= needs a name after the =.`);
  const worktree = await openWorktree(
    cwd,
    { name: request.name, prefix: "session" },
    WORKTREE_FLAG,
  );
  say(
    `working in the worktree ${worktree.workspace} (branch ${worktree.branch}, from HEAD ${worktree.base}${worktree.leftBehind ? ", without the uncommitted changes here" : ""}).`,
  );
  try {
    return await session(worktree.workspace);
  } finally {
    say(`${await worktree.finish()}.`);
  }
}

// `agentloop --worktree [NAME]`: the whole session in a new worktree (Claude Code's and
// gemini-cli's flag), so that a person can try two approaches side by side. The session's
// work is left as it is at the end, uncommitted: the person carries on there; a worktree in
// which nothing changed is removed with its branch. At the REPL a changed worktree is kept
// unless the person says no, and says it twice: its changes are nowhere else.

import { basename } from "node:path";
import { ConfigError } from "../core/errors.js";
import { openWorktree, type Worktree } from "./worktree.js";

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

/** A question for the person at the terminal (terminal/question.ts's shape); null: Ctrl-C. */
export type AskPerson = (question: {
  headline: string;
  detail: string[];
  choices: string;
}) => Promise<string | null>;

/**
 * Runs `session` in a new worktree made from `cwd`, saying where, and settles it at the end;
 * with `ask` (the REPL), a changed worktree is removed only if the person says so twice.
 */
export async function inSessionWorktree(
  cwd: string,
  request: WorktreeRequest,
  session: (workspace: string) => Promise<number>,
  say: (line: string) => void,
  ask?: AskPerson,
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
    const settled = await worktree.finish();
    if (settled.kept && ask && (await removalWanted(worktree, settled.said, ask))) {
      await worktree.discard();
      say(`removed the worktree ${worktree.path} and the branch ${worktree.branch}.`);
    } else {
      say(`${settled.said}.`);
    }
  }
}

/** Keep is the default; only a "no" and then a "yes" remove, and Ctrl-C keeps. */
async function removalWanted(worktree: Worktree, said: string, ask: AskPerson): Promise<boolean> {
  const name = basename(worktree.path);
  const keep = await ask({
    headline: `Keep the worktree ${name} with its changes?`,
    detail: [said],
    choices: "[Y]es, [n]o:",
  });
  if (!/^\s*no?\s*$/i.test(keep ?? "")) return false;
  const sure = await ask({
    headline: `Remove the worktree ${name} and its branch ${worktree.branch}, and lose its changes?`,
    detail: ["They are in no other place: this cannot be undone."],
    choices: "[y]es, [N]o:",
  });
  return /^\s*y(es)?\s*$/i.test(sure ?? "");
}

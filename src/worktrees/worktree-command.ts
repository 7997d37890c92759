// `agentloop worktree list` and `agentloop worktree remove NAME [--force]` [--cwd DIR]: agentloop's
// worktrees under .agentloop/worktrees/ from the shell. `remove` refuses, naming why, a worktree
// with uncommitted changes or with commits on no other branch (work that would be lost), unless
// --force.

import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { workTreeRootOf } from "../core/git-directory.js";
import { plural } from "../core/wording.js";
import { git } from "./git.js";
import { removeWorktree, WORKTREES_DIRECTORY } from "./worktree.js";

const USAGE = "Usage: agentloop worktree list | remove NAME [--force] [--cwd DIR]";

export async function runWorktreeCommand(options: {
  argv: string[];
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(options.argv);
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}. ${USAGE}`);
  }
  const [action, name, ...extra] = parsed.positionals;
  const cwd = resolve(parsed.values.cwd ?? ".");
  const root = workTreeRootOf(cwd);
  if (root === null) throw new ConfigError(`${cwd} is not in a git repository.`);
  if (action === "list" && name === undefined) {
    const names = await worktreeNames(root);
    if (names.length === 0) options.stdout(`No agentloop worktrees in ${root}.`);
    for (const each of names) options.stdout(`${each}\t${await stateOf(root, each)}`);
    return EXIT.done;
  }
  if (action !== "remove" || name === undefined || extra.length > 0) throw new ConfigError(USAGE);
  if (!(await worktreeNames(root)).includes(name)) {
    throw new ConfigError(`There is no agentloop worktree "${name}" in ${root}.`);
  }
  const path = join(root, WORKTREES_DIRECTORY, name);
  const branch = `agentloop/${name}`;
  if (!parsed.values.force) {
    const why = await whyKeep(root, path, branch);
    if (why) {
      options.stderr(`agentloop: ${name} is not removed: ${why}; --force removes it anyway.`);
      return EXIT.runtimeError;
    }
  }
  await removeWorktree(root, path, branch);
  options.stdout(`Removed the worktree ${path} and the branch ${branch}.`);
  return EXIT.done;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: { force: { type: "boolean" }, cwd: { type: "string" } },
  });
}

/** The names of the worktrees git knows under .agentloop/worktrees/. */
async function worktreeNames(root: string): Promise<string[]> {
  const listed = await git(root, ["worktree", "list", "--porcelain"]);
  const under = join(root, WORKTREES_DIRECTORY);
  return listed
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length))
    .filter((path) => path.startsWith(`${under}/`))
    .map((path) => basename(path));
}

async function stateOf(root: string, name: string): Promise<string> {
  const path = join(root, WORKTREES_DIRECTORY, name);
  const why = await whyKeep(root, path, `agentloop/${name}`);
  return `agentloop/${name}\t${why ?? "nothing that is not elsewhere"}`;
}

/** What would be lost by removing it, as words; null when nothing would. */
async function whyKeep(root: string, path: string, branch: string): Promise<string | null> {
  const changes = (await git(path, ["status", "--porcelain"])).split("\n").filter(Boolean);
  if (changes.length > 0) return `it has uncommitted changes (${plural(changes.length, "file")})`;
  const others = (await git(root, ["for-each-ref", "--format=%(refname)", "refs/heads"]))
    .split("\n")
    .filter((ref) => ref !== "" && ref !== `refs/heads/${branch}`);
  const own = await git(root, ["rev-list", "--count", branch, "--not", ...others]);
  const count = Number(own);
  if (count === 0) return null;
  return `${plural(count, "commit")} on ${branch} ${count === 1 ? "is" : "are"} on no other branch`;
}

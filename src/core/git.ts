// Every git process agentloop starts for itself (checkpoints, worktrees, batch) starts here, so
// that nothing a repository holds can make it run a command or look somewhere else. A repository's
// own config (.git/config, its config.worktree and whatever they include) is written by whoever
// wrote the repository: an archive, a shared drive, or a model in yolo mode. Git runs commands that
// config names (core.fsmonitor, hooks, pagers, diff and merge drivers, filters, ssh and credential
// helpers) and follows where it points (core.worktree). So each run:
//   - names its git directory and work tree outright, found from the files on disk, never from
//     config (git's own discovery honours core.worktree);
//   - turns off what may run whatever configured it: fsmonitor, hooks, the pager, editors;
//   - blanks every command the repository's own config names (found with `git config
//     --show-scope`, includes followed), in the settings git reads last (GIT_CONFIG_COUNT beats
//     every file), so the person's global drivers (git-lfs, say) still work;
//   - inherits no GIT_* variable, and never waits for a prompt.

import { execFile, execFileSync } from "node:child_process";
import { join } from "node:path";
import { gitDirectoryOf } from "./git-directory.js";

export interface GitRun {
  /** The directory git starts in. */
  cwd: string;
  /**
   * The work tree git works on. Its git directory is read from its `.git` (a directory, or a
   * linked worktree's pointer file) and both are passed to git, so core.worktree cannot move it.
   * Leave it out only for commands that make a repository (`init`, `clone`).
   */
  workTree?: string;
  /**
   * A git directory named outright: agentloop's own stores, whose config agentloop wrote. Only a
   * git directory found from `workTree` is a person's repository, whose config is searched.
   */
  gitDir?: string;
  /** Variables beside the hardened ones (GIT_INDEX_FILE, GIT_LITERAL_PATHSPECS, ...). */
  env?: Record<string, string>;
  /** The variables to start from, minus every GIT_* one; the process's own by default. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Standard input. */
  input?: string | Buffer;
  /** Leaves out the system-wide config (/etc/gitconfig) as well. */
  noSystemConfig?: boolean;
  /** Milliseconds before git is killed; none by default. */
  timeoutMs?: number;
}

/** Set on every run: each can run a command whatever config asked for it, so each is off. */
const ALWAYS_OFF: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["core.editor", "true"],
  ["sequence.editor", "true"],
  ["protocol.ext.allow", "never"],
];

/**
 * Keys that name a command (or send git elsewhere) when a repository's own config sets them,
 * with the value that neutralises each. Git's config documentation lists them: `<name>` is a
 * subsection the repository chose (a driver or a URL).
 */
const REPOSITORY_COMMANDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^core\.(sshcommand|askpass|gitproxy|alternaterefscommand|attributesfile)$/, ""],
  [/^diff\.external$/, ""],
  [/^diff\..+\.(command|textconv)$/, ""],
  [/^merge\..+\.driver$/, ""],
  [/^filter\..+\.(clean|smudge|process)$/, ""],
  [/^filter\..+\.required$/, "false"],
  [/^pager\..+$/, "false"],
  [/^credential\.(.+\.)?helper$/, ""],
  [/^gpg\.(.+\.)?program$/, ""],
  [/^(commit|tag)\.gpgsign$/, "false"],
  [/^remote\..+\.(uploadpack|receivepack|proxy)$/, ""],
  [/^(difftool|mergetool)\..+\.cmd$/, ""],
  [/^submodule\..+\.update$/, "none"],
];

/** How long finding the repository's commands may take (an include could name a FIFO). */
const CONFIG_SCAN_TIMEOUT_MS = 5_000;

/** Runs git and returns its standard output; throws (with `stderr` on the error) when it fails. */
export function gitSync(args: readonly string[], run: GitRun): Buffer {
  const { argv, env } = hardened(args, run);
  return execFileSync("git", argv, {
    cwd: run.cwd,
    env,
    input: run.input,
    maxBuffer: 1024 * 1024 * 1024,
    stdio: ["pipe", "pipe", "pipe"],
    timeout: run.timeoutMs,
  });
}

/** Runs git; resolves with its standard output, rejects (with `stderr`) when it fails. */
export function gitAsync(args: readonly string[], run: GitRun): Promise<string> {
  const { argv, env } = hardened(args, run);
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      argv,
      { cwd: run.cwd, env, maxBuffer: 1024 * 1024 * 1024, timeout: run.timeoutMs },
      (error, stdout, stderr) => {
        if (error) reject(Object.assign(error, { stderr }));
        else resolve(stdout);
      },
    );
    if (run.input !== undefined) child.stdin?.end(run.input);
  });
}

/** The arguments and environment of one hardened run. */
function hardened(
  args: readonly string[],
  run: GitRun,
): { argv: string[]; env: NodeJS.ProcessEnv } {
  const gitDir = run.gitDir ?? (run.workTree ? gitDirectoryOf(join(run.workTree, ".git")) : null);
  if (run.workTree && !gitDir) throw new Error(`${run.workTree} is not in a git repository`);
  const place = gitDir
    ? { GIT_DIR: gitDir, ...(run.workTree && { GIT_WORK_TREE: run.workTree }) }
    : {};
  const base = { ...withoutGitVariables(run.baseEnv ?? process.env), ...place, ...quietGit(run) };
  const theirs = gitDir && !run.gitDir;
  const settings = [...ALWAYS_OFF, ...(theirs ? repositoryCommands(run.cwd, base) : [])];
  const env: NodeJS.ProcessEnv = { ...base, ...configVariables(settings), ...run.env };
  return { argv: [...args], env };
}

function quietGit(run: GitRun): Record<string, string> {
  return {
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    GIT_EDITOR: "true",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    ...(run.noSystemConfig && { GIT_CONFIG_NOSYSTEM: "1" }),
  };
}

/**
 * The command-naming keys the repository's own config sets (scope local or worktree, which
 * includes what its include.path brings), each with its neutral value.
 */
function repositoryCommands(cwd: string, env: NodeJS.ProcessEnv): Array<readonly [string, string]> {
  let listed: string;
  try {
    listed = execFileSync("git", ["config", "--show-scope", "--name-only", "--list"], {
      cwd,
      env: { ...env, ...configVariables(ALWAYS_OFF) },
      stdio: ["ignore", "pipe", "ignore"],
      timeout: CONFIG_SCAN_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    }).toString();
  } catch (error) {
    throw new Error(`git could not read this repository's config: ${(error as Error).message}`);
  }
  const found: Array<readonly [string, string]> = [];
  for (const line of listed.split("\n")) {
    const [scope, key = ""] = line.split("\t");
    if (scope !== "local" && scope !== "worktree") continue;
    const lower = key.toLowerCase();
    const rule = REPOSITORY_COMMANDS.find(([pattern]) => pattern.test(lower));
    if (rule) found.push([key, rule[1]]);
  }
  return found;
}

/** Settings in git's environment form, which it reads after every config file. */
function configVariables(
  settings: ReadonlyArray<readonly [string, string]>,
): Record<string, string> {
  const variables: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach(([key, value], index) => {
    variables[`GIT_CONFIG_KEY_${index}`] = key;
    variables[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return variables;
}

function withoutGitVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env))
    if (!name.startsWith("GIT_")) clean[name] = value;
  return clean;
}

// The facts about the environment the model would otherwise spend turns finding out: the
// date, the platform and shell, the git repository and branch, what the permission mode lets
// its commands do, and how the tools are meant to be used. Written once at the start of a
// session, so the system prompt (and a prompt cache) stays the same on every request.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  directoriesFromRepositoryRoot,
  gitDirectoryOf,
  workTreeRootOf,
} from "../core/git-directory.js";
import type { PermissionMode } from "../permissions/policy.js";

export interface EnvironmentFacts {
  mode: PermissionMode;
  /** --allow-network: sandboxed commands may use the network. */
  allowNetwork: boolean;
  /** The person's writableGitDir (or --writable-git-dir): sandboxed commands may write .git. */
  writableGitDir?: boolean;
  /** The tools the model has, by name: the conventions name only those. */
  toolNames: readonly string[];
  /** The start of the session (today's date comes from it). */
  now?: Date;
  platform?: NodeJS.Platform;
}

/** What each mode means for the model's commands and file changes. */
function modeMeaning(mode: PermissionMode, facts: EnvironmentFacts, inGit: boolean): string {
  const network = facts.allowNetwork ? "with network" : "no network (unless --allow-network)";
  switch (mode) {
    case "ask":
      return "read-only commands run at once, in a read-only sandbox; others wait for the user's yes or no, and a no is final";
    case "auto": {
      const readOnlyGit = inGit && !facts.writableGitDir;
      const where = readOnlyGit ? "the workspace (not its .git)" : "the workspace";
      return `commands run sandboxed, unasked: writes only in ${where} and temp, ${network}`;
    }
    case "read-only":
      return "commands run in a read-only sandbox; file changes are refused: investigate and report";
    case "yolo":
      return "commands run unsandboxed and unasked: take care with anything destructive";
    case "plan":
      return "look, then propose a plan as plan mode's notes say; the mode changes once the user approves it";
  }
}

export function environmentSection(cwd: string, facts: EnvironmentFacts): string {
  const now = facts.now ?? new Date();
  const tools = new Set(facts.toolNames);
  const conventions = [
    ...(tools.has("read") && tools.has("edit") ? ["read a file before editing it"] : []),
    ...(tools.has("edit") && tools.has("write") ? ["prefer edit to write"] : []),
    "run the tests to check your work",
  ].join("; ");
  const platform = facts.platform ?? process.platform;
  return [
    "Environment:",
    `- Today is ${localDate(now)}; platform ${platform}, shell bash; ${gitFacts(cwd)}.`,
    `- Starting permission mode ${facts.mode}: ${modeMeaning(facts.mode, facts, workTreeRootOf(cwd) !== null)}.`,
    `- ${conventions[0]?.toUpperCase()}${conventions.slice(1)}.`,
  ].join("\n");
}

function localDate(now: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** Whether `cwd` is in a git repository, and on which branch, read from .git without running git. */
function gitFacts(cwd: string): string {
  const root = directoriesFromRepositoryRoot(cwd)[0] as string;
  const dotGit = join(root, ".git");
  const gitDirectory = gitDirectoryOf(dotGit);
  if (!gitDirectory) return "not a git repository";
  let head: string;
  try {
    head = readFileSync(join(gitDirectory, "HEAD"), "utf8").trim();
  } catch {
    return `git repository ${root}`;
  }
  const branch = /^ref: refs\/heads\/(.+)$/.exec(head)?.[1];
  return `git repository ${root}, ${branch ? `branch ${branch}` : `detached at ${head.slice(0, 12)}`}`;
}

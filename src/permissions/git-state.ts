// Which git commands write the repository's git state (its index, refs, objects, config): in the
// sandbox that state is read-only, so in auto mode these are refused with the reason, not run
// to fail with "Read-only file system".

import { gitIsReadOnly } from "./read-only.js";

/** Subcommands that write git state whatever their arguments, the read-only forms aside. */
const WRITERS = new Set([
  "add",
  "am",
  "bisect",
  "branch",
  "checkout",
  "cherry-pick",
  "commit",
  "commit-tree",
  "fetch",
  "filter-branch",
  "gc",
  "maintenance",
  "merge",
  "mktag",
  "mktree",
  "mv",
  "notes",
  "pack-refs",
  "prune",
  "pull",
  "push",
  "read-tree",
  "rebase",
  "reflog",
  "remote",
  "repack",
  "replace",
  "rerere",
  "reset",
  "restore",
  "revert",
  "rm",
  "sparse-checkout",
  "stash",
  "submodule",
  "switch",
  "symbolic-ref",
  "tag",
  "update-index",
  "update-ref",
  "worktree",
  "write-tree",
]);

/**
 * True when `args` (git's arguments after its global options) write the repository's git state.
 * Subcommands not listed write none of it (`clone` and `init` make a repository of their own)
 * or are aliases, which the sandbox contains like any command.
 */
export function writesGitState(args: string[]): boolean {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || gitIsReadOnly(args)) return false;
  switch (subcommand) {
    case "apply":
      // Plain `git apply` changes the work tree alone.
      return rest.some((arg) => /^(--index|--cached|-3|--3way)$/.test(arg));
    case "config":
      // Other files than the repository's are outside the sandbox's writable places anyway.
      return !rest.some((arg) => /^(--global|--system|--file|-f|--blob)(=|$)/.test(arg));
    case "hash-object":
      return rest.includes("-w");
    case "notes":
      return !["list", "show"].includes(rest[0] ?? "list");
    case "submodule":
      return !["status", "summary"].includes(rest[0] ?? "status");
    default:
      return WRITERS.has(subcommand);
  }
}

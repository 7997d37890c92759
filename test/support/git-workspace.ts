// A real git repository to let an agent loose in, and a fingerprint of its .git directory: every
// file's bytes and mode, so a test can say that nothing in it (refs, index, stash, HEAD) changed.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "person",
      GIT_AUTHOR_EMAIL: "person@localhost",
      GIT_COMMITTER_NAME: "person",
      GIT_COMMITTER_EMAIL: "person@localhost",
    },
  }).toString();
}

/** A repository with `files` committed, a stash entry, and a change staged in its index. */
export function gitRepository(directory: string, files: Record<string, string>): void {
  git(directory, "init", "--quiet", "--initial-branch=main");
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(directory, name), content);
  writeFileSync(join(directory, ".gitignore"), "*.log\n");
  git(directory, "add", "--all");
  git(directory, "commit", "--quiet", "-m", "first");
  writeFileSync(join(directory, "stashed.txt"), "put aside\n");
  git(directory, "add", "stashed.txt");
  git(directory, "stash", "--quiet");
  writeFileSync(join(directory, "staged.txt"), "staged\n");
  git(directory, "add", "staged.txt");
}

/** Every file under `directory` with its mode and the hash of its bytes. */
export function fingerprint(directory: string): Record<string, string> {
  const prints: Record<string, string> = {};
  const walk = (path: string, name: string) => {
    const stat = lstatSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) walk(join(path, entry), join(name, entry));
      return;
    }
    const hash = createHash("sha256").update(readFileSync(path)).digest("hex");
    prints[name] = `${(stat.mode & 0o7777).toString(8)} ${hash}`;
  };
  walk(directory, "");
  return prints;
}

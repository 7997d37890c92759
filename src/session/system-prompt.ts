// The system prompt: short, fixed for the whole session (so a prompt cache stays valid), and
// followed by the project's own instructions from AGENTS.md (or CLAUDE.md).

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

export function buildSystemPrompt(cwd: string): string {
  const base = [
    `You are agentloop, a coding agent working in ${cwd}.`,
    "Use the tools to inspect files, change them and run commands; act rather than describe.",
    "Commands run without a terminal and cannot read input, so pass everything as arguments.",
    "When the task is done, reply with a short summary of what you did.",
  ].join("\n");
  const instructions = projectInstructions(cwd);
  return instructions ? `${base}\n\n${instructions}` : base;
}

/**
 * AGENTS.md (or CLAUDE.md where a directory has no AGENTS.md) in every directory from the
 * repository root down to `cwd`, outermost first so the most specific instructions come last.
 * Outside a git repository only `cwd` itself is read.
 */
export function projectInstructions(cwd: string): string {
  const sections: string[] = [];
  for (const directory of directoriesFromRepositoryRoot(cwd)) {
    const file = ["AGENTS.md", "CLAUDE.md"].map((name) => join(directory, name)).find(existsSync);
    if (!file) continue;
    const text = readFileSync(file, "utf8").trim();
    if (text) sections.push(`Project instructions from ${relative(cwd, file) || file}:\n${text}`);
  }
  return sections.join("\n\n");
}

function directoriesFromRepositoryRoot(cwd: string): string[] {
  const chain = [cwd];
  let directory = cwd;
  while (!existsSync(join(directory, ".git"))) {
    const parent = dirname(directory);
    if (parent === directory) return [cwd];
    directory = parent;
    chain.push(directory);
  }
  return chain.reverse();
}

// What a skill or a custom command is once read from its file. Claude Code has folded custom
// commands into skills, and so does agentloop: a command is a skill without a directory of
// its own that only the user invokes (https://code.claude.com/docs/en/skills).

import type { Scope } from "./places.js";

export interface Skill {
  /** `skill`: a SKILL.md in a directory of its own; `command`: one .md file in commands/. */
  kind: "skill" | "command";
  /** What follows the slash: `/review`. */
  name: string;
  /** One line saying when to use it; for a command without one, its body's first line. */
  description: string;
  /** How the arguments are written in the help, from `argument-hint`: `[file]`. */
  argumentHint?: string;
  /** From `model`: the model a command runs on. */
  model?: string;
  /** False with `disable-model-invocation: true`, and for every command: only the user invokes it. */
  modelInvocable: boolean;
  /** The file it was read from. */
  file: string;
  /** The skill's directory, whose other files it may use; a command's folder. */
  directory: string;
  scope: Scope;
  /** The instructions, with `$ARGUMENTS` and `$1`...`$9` still in place. */
  body: string;
  /** What the file asks for that agentloop does not do, in words: `allowed-tools`, `!\`cmd\``. */
  ignored: string[];
}

/** The skills and commands found, and one line for each file that was skipped. */
export interface SkillCatalog {
  /** In the order found, the first of each name only: user's, then the project's. */
  skills: Skill[];
  /** One line per skipped file: which file, and why. */
  skipped: string[];
}

export function findSkill(catalog: SkillCatalog, name: string): Skill | undefined {
  return catalog.skills.find((skill) => skill.name === name);
}

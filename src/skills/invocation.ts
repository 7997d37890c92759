// `/name args` typed by the user, in the REPL or as the prompt given to -p, naming a skill or a
// custom command: the prompt it expands to, and the model a command asks for.

import type { LoadedSkills } from "./loaded-skills.js";
import { findSkill, type Skill, type SkillCatalog } from "./skill.js";
import { SKILL_NAME, skillText } from "./skill-text.js";

export interface Invocation {
  skill: Skill;
  /** What is sent to the model in place of the typed line. */
  prompt: string;
}

const INVOCATION = new RegExp(`^/(${SKILL_NAME})(?:\\s+([\\s\\S]*))?$`);

/** The invocation `text` is, or null when it names no skill or command. */
export function invocationOf(
  text: string,
  catalog: SkillCatalog,
  loaded?: LoadedSkills,
): Invocation | null {
  const match = INVOCATION.exec(text.trim());
  if (!match) return null;
  const skill = findSkill(catalog, match[1] as string);
  if (!skill) return null;
  const prompt = skillText(skill, (match[2] ?? "").trim());
  if (skill.kind === "skill") loaded?.add(skill.name, prompt);
  return { skill, prompt };
}

/** How a skill or command is written in /help and /skills: `/review [file]`. */
export function invocationUsage(skill: Skill): string {
  return skill.argumentHint ? `/${skill.name} ${skill.argumentHint}` : `/${skill.name}`;
}

/** One line telling the user what the file asks for that agentloop does not do, or null. */
export function ignoredNotice(skill: Skill): string | null {
  if (skill.ignored.length === 0) return null;
  return `/${skill.name} (${skill.file}): ignored ${skill.ignored.join(" and ")}.`;
}

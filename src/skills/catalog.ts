// The skills' catalog in the system prompt: each skill the model may load, by name, with its
// description and file, within a budget of about 1% of the context window, as Claude Code
// keeps its skill listing (https://code.claude.com/docs/en/skills). Long descriptions are cut
// to fit, never the names (src/core/fitted-list.ts); the bodies are sent only when the model
// asks for one.

import { relative, sep } from "node:path";
import { fitDescriptions } from "../core/fitted-list.js";
import type { Skill } from "./skill.js";

/** Bytes per token, roughly, for English text and code. */
const BYTES_PER_TOKEN = 4;

export function catalogBudget(contextWindow: number): number {
  return Math.floor(contextWindow * 0.01 * BYTES_PER_TOKEN);
}

const HEADING =
  "Skills (call the skill tool to load one when the task matches its description, before you start):";

export function catalogSection(
  skills: readonly Skill[],
  place: { cwd: string; home: string; budget: number },
): string | null {
  const listed = skills.filter((skill) => skill.modelInvocable);
  if (listed.length === 0) return null;
  const lines = listed.map((skill) => ({
    head: `- ${skill.name}`,
    description: skill.description,
    tail: ` (${shortPath(skill.file, place)})`,
  }));
  return [HEADING, ...fitDescriptions(lines, place.budget - HEADING.length)].join("\n");
}

/** A path as the user would write it: relative inside the workspace, with ~ in the home. */
export function shortPath(path: string, place: { cwd: string; home: string }): string {
  const inside = relative(place.cwd, path);
  if (!inside.startsWith("..") && !inside.startsWith(sep)) return inside;
  const inHome = relative(place.home, path);
  return inHome.startsWith("..") ? path : `~/${inHome}`;
}

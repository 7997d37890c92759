// The skills' catalog in the system prompt: each skill the model may load, by name, with its
// description and file, within a budget of about 1% of the context window, as Claude Code
// keeps its skill listing (https://code.claude.com/docs/en/skills). Long descriptions are cut
// to fit, never the names; the bodies are sent only when the model asks for one.

import { relative, sep } from "node:path";
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
    description: skill.description.replace(/\s+/g, " "),
    tail: ` (${shortPath(skill.file, place)})`,
  }));
  const fixed =
    HEADING.length + lines.reduce((sum, line) => sum + 1 + line.head.length + line.tail.length, 0);
  // ": " before each description comes out of the room left for them.
  const room = place.budget - fixed - 2 * lines.length;
  const cap = descriptionCap(
    lines.map((line) => line.description.length),
    room,
  );
  const text = lines.map(({ head, description, tail }) => {
    if (cap <= 0) return `${head}${tail}`;
    const cut =
      description.length > cap ? `${description.slice(0, cap - 1).trimEnd()}…` : description;
    return `${head}: ${cut}${tail}`;
  });
  return [HEADING, ...text].join("\n");
}

/**
 * The longest a description may be so that all of them fit in `room` characters: short ones
 * keep their length and the long ones share what is left equally.
 */
function descriptionCap(lengths: number[], room: number): number {
  if (room <= 0) return 0;
  const sorted = [...lengths].sort((a, b) => a - b);
  let left = room;
  for (const [index, length] of sorted.entries()) {
    const share = Math.floor(left / (sorted.length - index));
    if (length > share) return share;
    left -= length;
  }
  return Number.POSITIVE_INFINITY;
}

/** A path as the user would write it: relative inside the workspace, with ~ in the home. */
export function shortPath(path: string, place: { cwd: string; home: string }): string {
  const inside = relative(place.cwd, path);
  if (!inside.startsWith("..") && !inside.startsWith(sep)) return inside;
  const inHome = relative(place.home, path);
  return inHome.startsWith("..") ? path : `~/${inHome}`;
}

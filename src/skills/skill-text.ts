// A skill as the model reads it when it is loaded, by the skill tool or by the user's
// `/name args`: where it comes from, its directory and some of its files (so the model can
// read or run them with the other tools), then its instructions with the arguments in place.
// A command is its body alone, as the prompt the user would have typed.

import { type Dirent, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { substituteArguments } from "./arguments.js";
import type { Skill } from "./skill.js";

export const MAX_LISTED_FILES = 10;

/** A skill's or command's name as typed: its own, or a plugin's prefix and its own (`demo:review`). */
export const SKILL_NAME = "[a-z0-9][a-z0-9-]*(?::[a-z0-9][a-z0-9-]*)?";

/** How a loaded skill's text begins, so a history can be read back (skills-in-history.ts). */
export const LOADED_SKILL = new RegExp(`^Skill (${SKILL_NAME}), from `);

export function skillText(skill: Skill, argumentsText: string): string {
  const body = substituteArguments(skill.body, argumentsText);
  if (skill.kind === "command") return body;
  const files = filesOf(skill.directory, MAX_LISTED_FILES + 1);
  const listed = files.slice(0, MAX_LISTED_FILES).join(", ");
  const more = files.length > MAX_LISTED_FILES ? ` and more (list ${skill.directory})` : "";
  return [
    `Skill ${skill.name}, from ${skill.file}.`,
    `Its directory: ${skill.directory}`,
    ...(files.length > 0 ? [`Files there: ${listed}${more}`] : []),
    "",
    body,
  ].join("\n");
}

/** Up to `limit` files under `directory` but its SKILL.md, as paths relative to it. */
function filesOf(directory: string, limit: number): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= limit) return;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && path !== join(directory, "SKILL.md")) {
        found.push(relative(directory, path));
      }
    }
  };
  walk(directory);
  return found;
}

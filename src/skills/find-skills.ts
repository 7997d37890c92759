// Finds the skills (`<folder>/skills/<name>/SKILL.md`) and custom commands
// (`<folder>/commands/<name>.md`) of the user and of the project, in the folders places.ts
// lists, and reads their frontmatter. A file that cannot be used is skipped with one line, as
// is one that leads out of the place it belongs to (core/own-file.ts): a repository's skill
// that links to a file of the person's is not read.

import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { NO_COMPONENT_SOURCES } from "../core/component-sources.js";
import { personalPlaces, readOwnFile, repositoryPlace } from "../core/own-file.js";
import { type Frontmatter, parseFrontmatter, stringField } from "./frontmatter.js";
import { isFile, type Scope, searchFolders, type Where } from "./places.js";
import type { Skill, SkillCatalog } from "./skill.js";

/** Claude Code's rule for a skill's name: lowercase letters, digits and hyphens, at most 64. */
const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** `!\`git status\``: a command Claude Code runs while expanding; agentloop does not. */
const SHELL_INJECTION = /!`[^`\n]+`/;

export function findSkills(where: Where): SkillCatalog {
  const skills: Skill[] = [];
  const skipped: string[] = [];
  const places = {
    project: [repositoryPlace(where.cwd)],
    user: personalPlaces(where.env),
  } satisfies Record<Scope, string[]>;
  const add = (found: Skill | string) => {
    if (typeof found === "string") skipped.push(found);
    // The first of a name wins; a skill wins over a command of the same name.
    else if (!skills.some((skill) => skill.name === found.name)) skills.push(found);
  };
  const ownFolders = (kind: "skills" | "commands") =>
    searchFolders(kind, where).map(({ folder, scope }) => ({
      folder,
      scope,
      places: places[scope],
      prefix: "",
    }));
  // A source's skills and commands (an enabled plugin's) are the person's (installed by them),
  // each name prefixed with the source's, `demo:review`, and read only inside its folder.
  const sources = where.sources ?? NO_COMPONENT_SOURCES;
  skipped.push(...sources.problems);
  const sourceFolders = (kind: "skills" | "commands") =>
    sources.sources.flatMap((source) =>
      source[kind].map((folder) => ({
        folder,
        scope: "user" as const,
        places: [source.root],
        prefix: source.prefix,
      })),
    );
  for (const { folder, scope, places, prefix } of [
    ...ownFolders("skills"),
    ...sourceFolders("skills"),
  ]) {
    for (const entry of entriesOf(folder)) {
      const file = join(folder, entry, "SKILL.md");
      if (isFile(file))
        add(prefixed(readSkill(file, join(folder, entry), entry, scope, places), prefix));
    }
  }
  for (const { folder, scope, places, prefix } of [
    ...ownFolders("commands"),
    ...sourceFolders("commands"),
  ]) {
    for (const entry of entriesOf(folder)) {
      const file = join(folder, entry);
      if (entry.endsWith(".md") && isFile(file)) {
        add(prefixed(readCommand(file, folder, scope, places), prefix));
      }
    }
  }
  return { skills, skipped };
}

/** A source's skill or command, named with its prefix once its own name is checked. */
function prefixed(found: Skill | string, prefix: string): Skill | string {
  return typeof found === "string" || prefix === ""
    ? found
    : { ...found, name: `${prefix}${found.name}` };
}

function readSkill(
  file: string,
  directory: string,
  folderName: string,
  scope: Scope,
  places: string[],
): Skill | string {
  const parsed = readTemplate(file, places);
  if (typeof parsed === "string") return parsed;
  const { fields, body } = parsed;
  const name = stringField(fields, "name") ?? folderName;
  const description = stringField(fields, "description");
  if (!description) return `skipped ${file}: its frontmatter has no "description".`;
  if (!NAME.test(name)) return badName(file, name);
  return template(parsed, {
    kind: "skill",
    name,
    description,
    modelInvocable: fields["disable-model-invocation"] !== true,
    file,
    directory,
    scope,
    body,
  });
}

function readCommand(file: string, folder: string, scope: Scope, places: string[]): Skill | string {
  const parsed = readTemplate(file, places);
  if (typeof parsed === "string") return parsed;
  const name = basename(file, ".md");
  if (!NAME.test(name)) return badName(file, name);
  const firstLine = parsed.body.split("\n").find((line) => line.trim() !== "") ?? "";
  const description = stringField(parsed.fields, "description") ?? firstLine.trim();
  const model = stringField(parsed.fields, "model");
  return template(parsed, {
    kind: "command",
    name,
    description,
    ...(model ? { model } : {}),
    modelInvocable: false,
    file,
    directory: folder,
    scope,
    body: parsed.body,
  });
}

function badName(file: string, name: string): string {
  return `skipped ${file}: the name "${name}" is not lowercase letters, digits and hyphens.`;
}

function readTemplate(file: string, places: string[]): Frontmatter | string {
  const read = readOwnFile(file, places);
  if (!("text" in read)) {
    return `skipped ${file}: ${"skipped" in read ? read.skipped : "it no longer exists"}.`;
  }
  const parsed = parseFrontmatter(read.text);
  return typeof parsed === "string" ? `skipped ${file}: ${parsed}.` : parsed;
}

/** The fields every kind shares, and what the file asks for that is not done. */
function template(parsed: Frontmatter, skill: Omit<Skill, "ignored" | "argumentHint">): Skill {
  const ignored: string[] = [];
  if (parsed.fields["allowed-tools"] !== undefined) {
    ignored.push("allowed-tools (permissions come from agentloop's own rules)");
  }
  if (SHELL_INJECTION.test(parsed.body)) {
    ignored.push("!`command` (not run; the text is passed on as written)");
  }
  const argumentHint = parsed.written["argument-hint"];
  return {
    ...skill,
    body: skill.body.trim(),
    ...(argumentHint ? { argumentHint } : {}),
    ignored,
  };
}

function entriesOf(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}

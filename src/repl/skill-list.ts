// What the REPL's /skills prints: each skill and custom command, where it comes from, who may
// invoke it and what of its file is ignored; then the files that were skipped.

import { shortPath } from "../skills/catalog.js";
import { invocationUsage } from "../skills/invocation.js";
import { homeOf } from "../skills/places.js";
import type { SkillCatalog } from "../skills/skill.js";

export function skillLines(catalog: SkillCatalog, cwd: string): string[] {
  const place = { cwd, home: homeOf(process.env) };
  if (catalog.skills.length === 0 && catalog.skipped.length === 0) {
    return [
      "No skills or commands. A skill is .agentloop/skills/NAME/SKILL.md (or .claude/, .agents/);",
      "a command is .agentloop/commands/NAME.md (or .claude/); see docs/skills.md.",
    ];
  }
  const lines = catalog.skills.flatMap((skill) => {
    const who = skill.modelInvocable ? "you or the model" : "you only";
    return [
      `${invocationUsage(skill)}  ${skill.kind} of the ${skill.scope === "user" ? "user" : "project"}, ${shortPath(skill.file, place)}; invoked by ${who}`,
      `    ${skill.description}`,
      ...skill.ignored.map((what) => `    ignored: ${what}`),
    ];
  });
  return [...lines, ...catalog.skipped.map((line) => `agentloop: ${line}`)];
}

// The skill tool: the model loads a skill of the catalog in the system prompt by name, and
// gets its instructions (with `arguments` for `$ARGUMENTS`), its directory and its files.

import { failure, success, type Tool } from "../tools/tool.js";
import type { LoadedSkills } from "./loaded-skills.js";
import type { Skill } from "./skill.js";
import { skillText } from "./skill-text.js";

export type SkillInput = { name: string; arguments?: string };

export function createSkillTool(skills: readonly Skill[], loaded: LoadedSkills): Tool<SkillInput> {
  const invocable = skills.filter((skill) => skill.modelInvocable);
  return {
    name: "skill",
    description:
      "Load a skill from the system prompt's list: its instructions, directory and files. `arguments` fills its $ARGUMENTS.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "The skill's name, as listed." },
        arguments: { type: "string" },
      },
      required: ["name"],
      additionalProperties: false,
    },
    isReadOnly: () => true,
    async run({ name, arguments: argumentsText = "" }) {
      const skill = invocable.find((candidate) => candidate.name === name);
      if (!skill) {
        const userOnly = skills.find((candidate) => candidate.name === name);
        if (userOnly)
          return failure(`${name} is invoked by the user only (/${name}), not loaded by you.`);
        const names = invocable.map((candidate) => candidate.name).join(", ");
        return failure(`No skill "${name}". The skills are: ${names}.`);
      }
      if (loaded.has(name)) {
        return success(
          `Skill ${name} is already loaded in this conversation: follow its instructions above.`,
        );
      }
      // @step tool.skill: The skill's instructions come back as the tool's result.
      const text = skillText(skill, argumentsText);
      loaded.add(name, text);
      return success(text);
    },
  };
}

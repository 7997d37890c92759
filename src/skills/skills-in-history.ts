// The skills a history has loaded, read back from its messages: each skill tool result and
// each `/name` prompt that begins as skill-text.ts writes a skill, and those a compaction restated. A resumed session knows
// them again (a second load still says so, a compaction restates them), and the viewer shows
// them at each step.

import type { Message } from "../core/messages.js";
import { RESTATED_HEADING } from "./loaded-skills.js";
import { LOADED_SKILL, SKILL_NAME } from "./skill-text.js";

/** Each skill loaded in `messages`, by name with the text the model was given, oldest first. */
export function skillsInHistory(messages: readonly Message[]): [name: string, text: string][] {
  const found = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "user") continue;
    for (const text of userTexts(message.content).flatMap(restatedApart)) {
      const name = LOADED_SKILL.exec(text)?.[1];
      if (name) {
        found.delete(name);
        found.set(name, text);
      }
    }
  }
  return [...found];
}

/** The texts restated beside a compaction's summary, each on its own, oldest first again. */
function restatedApart(text: string): string[] {
  if (!text.startsWith(RESTATED_HEADING)) return [text];
  return text
    .split(new RegExp(`\n\n(?=Skill ${SKILL_NAME}, from )`))
    .slice(1)
    .reverse();
}

function userTexts(content: Extract<Message, { role: "user" }>["content"]): string[] {
  if (typeof content === "string") return [content];
  return content.flatMap((block) => {
    if (block.type === "text") return [block.text];
    if (block.type === "tool_result" && !block.is_error && typeof block.content === "string") {
      return [block.content];
    }
    return [];
  });
}

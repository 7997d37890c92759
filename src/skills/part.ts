// The skills part (s07): the skill tool and, beside it in the system prompt, the catalog of the
// skills the model may load; a loaded skill's text is restated beside a compaction's summary, and
// a history gone on with (/resume) brings back the skills it had loaded.

import type { SessionPart } from "../core/part.js";
import type { Tool } from "../core/tool.js";
import { catalogBudget, catalogSection } from "./catalog.js";
import type { LoadedSkills } from "./loaded-skills.js";
import { homeOf } from "./places.js";
import type { Skill } from "./skill.js";
import { createSkillTool } from "./skill-tool.js";
import { skillsInHistory } from "./skills-in-history.js";

/**
 * What the loaded skills may take beside a compaction's summary, in tokens: Claude Code's
 * 25,000 in all and 5,000 each, and no more than a tenth of a small model's window.
 */
const RESTATED_SKILLS_TOKENS = { total: 25_000, each: 5_000, windowShare: 0.1 };

export interface SkillsOptions {
  skills: readonly Skill[];
  loaded: LoadedSkills;
  /** The skill tool was chosen (it is in the default set). */
  chosen: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
  contextWindow: number;
}

export function createSkillsPart(options: SkillsOptions): SessionPart {
  const { skills, loaded, contextWindow } = options;
  // Offered when there is a skill the model may load; the catalog goes with the tool.
  const offered = options.chosen && skills.some((skill) => skill.modelInvocable);
  const tools: Tool[] = offered ? [createSkillTool(skills, loaded) as Tool] : [];
  const none: Tool[] = [];
  return {
    name: "skills",
    // A child has no skill tool: it would load skills into a history the parent never sees.
    tools: (offer) => (offer.forChild ? none : tools),
    systemPrompt() {
      if (!offered) return null;
      const where = { cwd: options.cwd, home: homeOf(options.env) };
      return catalogSection(skills, { ...where, budget: catalogBudget(contextWindow) });
    },
    restated() {
      const tokens = RESTATED_SKILLS_TOKENS;
      const total = Math.min(tokens.total, Math.floor(contextWindow * tokens.windowShare));
      // Bytes, at about four a token.
      return loaded.restated({ total: total * 4, each: Math.min(tokens.each, total) * 4 });
    },
    historyStarted(start, messages) {
      if (start === "resume" || start === "clear") loaded.restore(skillsInHistory(messages));
    },
  };
}

// What the command line says of the goal (--goal, --goal-model, --goal-max-turns, declared in
// chapter.ts), and the one check every way of setting a condition goes through (the flag and
// /goal alike).

import type { FlagValues } from "../core/chapter-flags.js";
import { ConfigError } from "../core/errors.js";

export interface GoalOptions {
  /** The condition to work toward from the start; a resumed session's own goal otherwise. */
  condition: string | undefined;
  /** Another model of the session's provider to judge with (else the setting, else the session's). */
  model: string | undefined;
  /** Continuations in a row before the goal gives up; DEFAULT_GOAL_MAX_TURNS when unset. */
  maxTurns: number | undefined;
}

/** The goal's flags among the chapters' (PartContext.flags), as the command line checked them. */
export function goalFlags(flags: FlagValues): GoalOptions {
  const text = (value: FlagValues[string]) => (typeof value === "string" ? value : undefined);
  const turns = flags["goal-max-turns"];
  return {
    condition: text(flags.goal),
    model: text(flags["goal-model"]),
    maxTurns: typeof turns === "number" ? turns : undefined,
  };
}

/** The default: at most 8 continuations in a row (anthropics/claude-code#58550). */
export const DEFAULT_GOAL_MAX_TURNS = 8;

/** Claude Code's limit for a condition (https://code.claude.com/docs/en/goal). */
export const MAX_CONDITION_CHARS = 4000;

/** The condition as it is kept: trimmed, not empty, at most MAX_CONDITION_CHARS long. */
export function goalCondition(text: string, where: string): string {
  const condition = text.trim();
  if (condition === "") {
    throw new ConfigError(`${where} needs a condition, for example ${where} "npm test passes".`);
  }
  if (condition.length > MAX_CONDITION_CHARS) {
    throw new ConfigError(
      `${where}: the condition has ${condition.length} characters; at most ${MAX_CONDITION_CHARS} are allowed.`,
    );
  }
  return condition;
}

// How much and whether the model thinks, as the user chose it (--effort, --thinking, settings),
// before each provider turns it into what its API takes.

import { ConfigError } from "../core/errors.js";
import { type ProjectSettings, readAllSettings } from "../core/project-settings.js";

export const EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
export type Effort = (typeof EFFORTS)[number];

export const THINKING_MODES = ["adaptive", "off"] as const;
export type ThinkingMode = (typeof THINKING_MODES)[number];

export interface ThinkingOptions {
  /** Left out: the model's own default. */
  thinking?: ThinkingMode;
  effort?: Effort;
  /**
   * Ask for thinking a person can read where the model would otherwise send none (Sonnet 5.5
   * sends only signatures by default). The REPL asks; headless runs leave the default.
   */
  showThinking?: boolean;
}

/**
 * The user's choice: the flags, else the settings files' `"effort"` and `"thinking"` (the
 * project's over the user's), else nothing (the model's default).
 */
export async function chooseThinking(input: {
  effort: Effort | undefined;
  thinking: ThinkingMode | undefined;
  showThinking: boolean;
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** The files as start-up read them, once for every part (SettingsPlace). */
  read?: ProjectSettings;
}): Promise<ThinkingOptions> {
  let effort = input.effort;
  let thinking = input.thinking;
  const fromFiles = await readAllSettings(input);
  for (const { file, settings } of fromFiles.reverse()) {
    effort ??= settingOf(settings.effort, EFFORTS, `"effort" in ${file}`);
    thinking ??= settingOf(settings.thinking, THINKING_MODES, `"thinking" in ${file}`);
  }
  return { effort, thinking, showThinking: input.showThinking };
}

/** A flag's or a setting's value, checked against the values it may take. */
export function settingOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  what: string,
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) {
    return value as T;
  }
  throw new ConfigError(
    `${what} must be one of ${allowed.join(", ")}, got ${JSON.stringify(value)}.`,
  );
}

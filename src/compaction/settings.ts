// Which window compaction fits the history into, and whether it compacts on its own: from the
// command line, then the settings files, then what agentloop knows about the model.

import { ConfigError } from "../core/errors.js";
import { type ProjectSettings, readAllSettings } from "../core/project-settings.js";
import { DEFAULT_CONTEXT_WINDOW, modelFacts } from "../providers/model-table.js";

export interface CompactionChoice {
  /** From --context-window or a settings file; null leaves it to the provider or the model. */
  contextWindow: number | null;
  auto: boolean;
}

export async function chooseCompaction(input: {
  /** --context-window */
  contextWindow: number | undefined;
  /** False with --no-auto-compact. */
  autoCompact: boolean;
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** The files as start-up read them, once for every part (SettingsPlace). */
  read?: ProjectSettings;
}): Promise<CompactionChoice> {
  let fromSettings: number | undefined;
  let auto = input.autoCompact;
  for (const { file, settings } of await readAllSettings(input)) {
    const window = settings.contextWindow;
    if (window !== undefined) {
      if (!Number.isInteger(window) || (window as number) < 1) {
        throw new ConfigError(`"contextWindow" in ${file} must be a whole number of tokens.`);
      }
      fromSettings = window as number;
    }
    if (settings.autoCompact !== undefined) {
      if (typeof settings.autoCompact !== "boolean") {
        throw new ConfigError(`"autoCompact" in ${file} must be true or false.`);
      }
      auto &&= settings.autoCompact;
    }
  }
  return { contextWindow: input.contextWindow ?? fromSettings ?? null, auto };
}

/** The window to fit: the user's choice, else what the provider knows, the model table, a default. */
export function contextWindowOf(
  choice: CompactionChoice,
  provider: { model: string; contextWindow?: number },
): number {
  return (
    choice.contextWindow ??
    provider.contextWindow ??
    modelFacts(provider.model)?.contextWindow ??
    DEFAULT_CONTEXT_WINDOW
  );
}

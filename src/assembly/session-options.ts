// What a session is assembled from: the settings a front end gathers (the command line's flags,
// an editor's request), before the settings files and the environment add theirs.

import type { FlagValues } from "../core/chapter-flags.js";
import type { Effort, ThinkingMode } from "../providers/thinking-options.js";
import type { Resume } from "./session-file-open.js";

export interface SessionOptions {
  cwd: string;
  model: string | undefined;
  provider: string | undefined;
  baseURL: string | undefined;
  /** Which of OpenAI's protocols to speak, checked when the provider is chosen. */
  api: string | undefined;
  maxTurns: number;
  maxCost: number | undefined;
  /** How hard the model thinks, where it takes a level (else the settings' or its own). */
  effort: Effort | undefined;
  /** adaptive or off (else the settings' or the model's own default). */
  thinking: ThinkingMode | undefined;
  /** The model's window in tokens, when agentloop's table has it wrong. */
  contextWindow: number | undefined;
  /** False: compact only on /compact or when the API says "too long". */
  autoCompact: boolean;
  /** The tools the model gets (default: the default set, or the settings' "tools"). */
  tools: string[] | undefined;
  /** MCP servers' files, added to those of .mcp.json and the settings. */
  mcpConfigFiles: string[];
  resume: Resume;
  /** A permission mode's name; default ask where a person can answer, else auto. */
  permissionMode: string | undefined;
  allowNetwork: boolean;
  /**
   * Sandboxed commands may write the repository's .git (--writable-git-dir), whatever the
   * user's settings say; a batch gives it to the clones it made itself.
   */
  writableGitDir?: boolean;
  /**
   * The chapters' own flags (--memory, --teams, --goal, ...; each declared in its chapter.ts), by
   * name: the command line gives those it was given, checked, and each part reads its own.
   */
  flags?: FlagValues;
}

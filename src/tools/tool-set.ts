// Which tools the model gets: bash (s01) and the file tools (s02), the built-in ones, and the
// tools of the chapters (the todo list, skill, agent, the web, the task board, the cron tools),
// each named by its chapter's description (src/NAME/chapter.ts) in its entry of the session's
// list. By default a session has the built-in ones and every chapter's tools that are in the
// default set of its model (a chapter says when they are only a hosted or a local model's, or
// no model's); a list the person chose with --tools or "tools" in a settings file replaces
// that set ("bash" alone is the s01 tool set).

import { ConfigError } from "../core/errors.js";
import { type ProjectSettings, readAllSettings } from "../core/project-settings.js";

/** The built-in tools (src/assembly/built-in-tools.ts makes them). */
export const TOOL_NAMES = ["bash", "read", "write", "edit"] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** A chapter's tools as its description names them (PartEntry in src/assembly/parts.ts). */
export interface ChapterTools {
  /** The tools its part may offer: --tools and the "tools" setting accept them. */
  tools?: readonly string[];
  /**
   * Whose default set holds them: absent, every model's; else only a hosted model's, only a
   * local one's, or no model's (offered only when a list names them).
   */
  inDefaultSetOf?: "hosted models" | "local models" | "no model";
}

export interface ToolChoice {
  names: ToolName[];
  /** The chosen tools of the parts (their chapters name them: `chapters` below). */
  partTools: string[];
  /** The person named them (--tools, a settings file), rather than taking the default set. */
  chosen: boolean;
}

/** --tools wins; else the project's, then the user's "tools" setting; else the default set. */
export async function chooseTools(input: {
  flag: string[] | undefined;
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** The files as start-up read them, once for every part (SettingsPlace). */
  read?: ProjectSettings;
  /** The session runs a local model (--provider local). */
  localModel?: boolean;
  /** The chapters whose parts may offer tools, as they describe them. */
  chapters?: readonly ChapterTools[];
}): Promise<ToolChoice> {
  const chapters = input.chapters ?? [];
  const partTools = chapters.flatMap((chapter) => chapter.tools ?? []);
  const valid = (names: string[], where: string) => validNames(names, where, partTools);
  if (input.flag) return { ...valid(input.flag, "--tools"), chosen: true };
  const model = input.localModel === true ? "local models" : "hosted models";
  let choice: ToolChoice = {
    names: [...TOOL_NAMES],
    partTools: chapters.flatMap(({ tools = [], inDefaultSetOf }) =>
      inDefaultSetOf === undefined || inDefaultSetOf === model ? tools : [],
    ),
    chosen: false,
  };
  for (const { file, settings } of await readAllSettings(input)) {
    if (settings.tools === undefined) continue;
    const names = settings.tools;
    if (!Array.isArray(names) || names.some((name) => typeof name !== "string")) {
      throw new ConfigError(`"tools" in ${file} must be a list of tool names, such as ["bash"].`);
    }
    choice = { ...valid(names as string[], `"tools" in ${file}`), chosen: true };
  }
  return choice;
}

function validNames(
  names: string[],
  where: string,
  partTools: readonly string[],
): { names: ToolName[]; partTools: string[] } {
  const known: readonly string[] = [...TOOL_NAMES, ...partTools];
  const unknown = names.find((name) => !known.includes(name));
  if (unknown !== undefined) {
    throw new ConfigError(
      `${where} names an unknown tool "${unknown}": choose from ${known.join(", ")}.`,
    );
  }
  const unique = [...new Set(names)];
  return {
    names: unique.filter((name) => (TOOL_NAMES as readonly string[]).includes(name)) as ToolName[],
    partTools: unique.filter((name) => partTools.includes(name)),
  };
}

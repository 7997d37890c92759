// Which tools the model gets: bash (s01) and the file tools (s02) by default, or the list the
// user chose with --tools or "tools" in a settings file ("bash" alone is the s01 tool set).
// The todo list (s05) is offered by default only to a local model: small models lose track of a
// task of many steps first, while frontier models plan on their own and the default stays lean.
// `skill` (s07) is in the default set, and offered only when there is a skill the model may load.
// The agent tool (s06) is offered by default to a hosted model, as every agent people use offers
// its subagent tool; a local model's window is small, so it gets it only when chosen.
// web_search (src/web/) is in a hosted model's default set: the web part offers it only where
// the API runs the search (Anthropic's, OpenAI's Responses), so Chat Completions gets none.
// web_fetch is in a hosted model's default set too, as Claude Code, gemini-cli and opencode
// offer theirs: a person who asks "read this page" gets an agent that can. Its address check and
// per-domain permission (asked at the REPL, refused headless unless allowed) keep it safe. A
// local model gets it, and a subagent too, only when the person's list names it.
// A chapter's tools (src/NAME/chapter.ts) are named by its entry in the session's list: they
// are in the default set unless the chapter says they are not (the task board's: a session has
// them when the list names them or "tasks": true turns the board on).

import { ConfigError } from "../core/errors.js";
import { type ProjectSettings, readAllSettings } from "../core/project-settings.js";

export const TOOL_NAMES = [
  "bash",
  "read",
  "write",
  "edit",
  "todo_write",
  "skill",
  "agent",
  "web_fetch",
  "web_search",
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** A chapter's tools as its description names them (PartEntry in src/assembly/parts.ts). */
export interface ChapterTools {
  tools?: readonly string[];
  /** False: its tools are offered only when a list names them, never by default. */
  inDefaultSet?: boolean;
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
  const local = input.localModel === true;
  const hostedOnly = ["agent", "web_search", "web_fetch"];
  let choice: ToolChoice = {
    names: TOOL_NAMES.filter(
      (name) => (name !== "todo_write" || local) && !(local && hostedOnly.includes(name)),
    ),
    partTools: chapters.flatMap((chapter) =>
      chapter.inDefaultSet === false ? [] : (chapter.tools ?? []),
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

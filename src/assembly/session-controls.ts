// What the front ends show and change of an assembled session beyond the session itself: the
// REPL's commands (/plan, /model, /resume, /skills, /hooks), the progress line and the JSON result.

import type { BackgroundTasks } from "../background/tasks.js";
import type { ComponentSources } from "../core/component-sources.js";
import type { PermissionMode } from "../core/permission-mode.js";
import type { TodoItem } from "../core/todo-item.js";
import type { PreparedHooks } from "../hooks/prepare.js";
import type { PermissionRules } from "../permissions/policy.js";
import type { Effort } from "../providers/thinking-options.js";
import type { LoadedSkills } from "../skills/loaded-skills.js";
import type { SkillCatalog } from "../skills/skill.js";

/** What the REPL's commands show and change beyond the session itself. */
export interface SessionControls {
  /** The provider preset the model runs on: anthropic, openai, ollama, local, ... */
  readonly provider: string;
  /** The permission mode now: /plan and the approval of a plan change it. */
  readonly mode: PermissionMode;
  /** Goes on in `mode` from the next tool call; throws a ConfigError when it cannot start here. */
  switchMode(mode: PermissionMode): Promise<void>;
  /** The file plan mode writes the plan to. */
  planFile(): string;
  /** The allow, ask and deny rules of the settings files, read again now. */
  permissionRules(): Promise<PermissionRules>;
  /** The skills and custom commands found at start-up (/skills, /help, `/name args`). */
  readonly skills: SkillCatalog;
  /** The skills loaded so far: a `/name` the user types counts too. */
  readonly loadedSkills: LoadedSkills;
  /** Folders beside the person's own that the session read (enabled plugins'): /agents. */
  readonly sources: ComponentSources;
  /** The hooks in force and the project's skipped ones, as read at start (the REPL's /hooks). */
  readonly hooks: Pick<PreparedHooks, "running" | "skipped">;
  /** The todo list as it stands (the JSON result's `todos`). */
  readonly todos: () => readonly TodoItem[];
  /** The session's background tasks (the progress line, /tasks, the JSON result). */
  readonly tasks: BackgroundTasks;
  /** Goes on in a new session file, or in session `id` resumed as --resume does. */
  switchSession(id: string | undefined): { sessionPath: string; notices: string[] };
  /** The following requests go to model `name` of the same provider, made as at start-up. */
  switchModel(name: string): Promise<void>;
  /** The thinking effort asked for (--effort, settings, a switch); undefined: the model's default. */
  effort(): Promise<Effort | undefined>;
  /** The following requests ask the same model for `effort` (undefined: its default). */
  switchEffort(effort: Effort | undefined): Promise<void>;
}

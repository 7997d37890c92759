// A session's hooks, ready to run: read from the settings files, the project's approved (or
// skipped, saying so), then given to the toolbox and to the session as their seams.

import type { ComponentSources } from "../core/component-sources.js";
import type { ProjectSettings } from "../core/project-settings.js";
import type { ToolCallHooks } from "../tools/toolbox.js";
import { type HookDefinition, loadHooks } from "./config.js";
import type { HookRunner, RunnerSetup } from "./runner.js";
import type { SessionHooks } from "./session-hooks.js";
import { type HookTrustContext, trustHooks } from "./trust.js";

export type HookSetup = Omit<RunnerSetup, "hooks"> &
  Pick<HookTrustContext, "ask" | "onNotice"> & {
    /** Tells the person something while the session runs (the Stop hooks' limit). */
    onRunNotice: (sentence: string) => void;
    /** The settings files as start-up read them; absent, they are read now. */
    read?: ProjectSettings;
    /** Hooks beside the settings' (enabled plugins'), as the session's chapters gave them. */
    sources?: ComponentSources;
  };

export interface PreparedHooks {
  /** The hooks in force, in the order they are defined (the user's first). */
  running: readonly HookDefinition[];
  /** The project's hooks that the user has not approved. */
  skipped: readonly HookDefinition[];
  /** Absent when no hook runs. The runner fires any event (SubagentStop, once subagents exist). */
  runner?: HookRunner;
  toolHooks?: ToolCallHooks;
  sessionHooks?: SessionHooks;
}

export async function prepareHooks(setup: HookSetup): Promise<PreparedHooks> {
  const where = { workspace: setup.workspace, env: setup.env, onNotice: setup.onNotice };
  const defined = await loadHooks({ ...where, read: setup.read, sources: setup.sources });
  const { running, skipped } = await trustHooks(defined, { ...where, ask: setup.ask });
  if (running.length === 0) return { running, skipped };
  // The runner is loaded only by a session with hooks to run.
  const [{ createHookRunner }, { createSessionHooks }, { createToolCallHooks }] = await Promise.all(
    [import("./runner.js"), import("./session-hooks.js"), import("./tool-hooks.js")],
  );
  const runner = createHookRunner({ ...setup, hooks: running });
  return {
    running,
    skipped,
    runner,
    toolHooks: createToolCallHooks(runner, setup.workspace),
    sessionHooks: createSessionHooks(runner, setup.onRunNotice),
  };
}

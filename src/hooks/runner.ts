// Fires an event's hooks: every hook of that event whose matcher fits runs at once, each with
// one JSON object on stdin (Claude Code's field names), and their outcomes are combined: any
// block blocks, "ask" wins over "allow". Every run becomes a loop event, kept until the session
// takes it (it is written to the session file and shown at the step it ran at).

import type { HookRunEvent } from "../core/events.js";
import type { PermissionHint } from "../tools/toolbox.js";
import type { HookDefinition, HookEventName } from "./config.js";
import { compileMatcher } from "./matcher.js";
import { type HookOutcome, outcomeOf } from "./outcome.js";
import { runHookCommand } from "./run-command.js";

export interface RunnerSetup {
  /** The hooks that may run: the user's, and the project's the user approved. */
  hooks: readonly HookDefinition[];
  workspace: string;
  /** The session's permission mode now (/plan changes it), as hooks read it in `permission_mode`. */
  permissionMode: () => string;
  /** The session now: /clear and /resume change it. */
  session: () => { id: string; transcriptPath: string };
  /** The user's real environment; the hooks also get AGENTLOOP_PROJECT_DIR and CLAUDE_PROJECT_DIR. */
  env: NodeJS.ProcessEnv;
}

export interface FireOptions {
  /** What matchers are matched against: the tool's name, the source, the trigger. */
  match?: string;
  toolUseId?: string;
  signal: AbortSignal;
}

/** What the hooks of one event said, together. */
export interface Fired {
  /** The reasons of the hooks that blocked, joined; null when none did. */
  block: string | null;
  /** Text for the model, one entry per hook that gave some. */
  context: string[];
  permission: PermissionHint | null;
  updatedInput: Record<string, unknown> | null;
}

export interface HookRunner {
  readonly hooks: readonly HookDefinition[];
  fire(event: HookEventName, fields: Record<string, unknown>, options: FireOptions): Promise<Fired>;
  /** The runs since the last call, as loop events, in the order they ended. */
  takeRuns(): HookRunEvent[];
}

export function createHookRunner(setup: RunnerSetup): HookRunner {
  const compiled = setup.hooks.map((hook) => ({ hook, matcher: compileMatcher(hook.matcher) }));
  const env = {
    ...setup.env,
    AGENTLOOP_PROJECT_DIR: setup.workspace,
    CLAUDE_PROJECT_DIR: setup.workspace,
  };
  let runs: HookRunEvent[] = [];

  async function runOne(hook: HookDefinition, input: string, options: FireOptions) {
    const run = await runHookCommand(hook.command, {
      cwd: setup.workspace,
      env: hook.env ? { ...env, ...hook.env } : env,
      input,
      timeoutSeconds: hook.timeoutSeconds,
      signal: options.signal,
    });
    const outcome = outcomeOf(hook, run);
    // @step hooks: One of the user's hooks ran with the step's JSON on stdin; its run is recorded.
    runs.push(runEvent(hook, run, outcome, options.toolUseId));
    return outcome;
  }

  return {
    hooks: setup.hooks,
    async fire(event, fields, options) {
      const chosen = compiled.filter(
        (entry) =>
          entry.hook.event === event &&
          (options.match === undefined || entry.matcher.matches(options.match)),
      );
      if (chosen.length === 0) return nothingSaid();
      const session = setup.session();
      const input = JSON.stringify({
        session_id: session.id,
        transcript_path: session.transcriptPath,
        cwd: setup.workspace,
        permission_mode: setup.permissionMode(),
        hook_event_name: event,
        ...fields,
      });
      const outcomes = await Promise.all(chosen.map(({ hook }) => runOne(hook, input, options)));
      return combined(outcomes);
    },
    takeRuns() {
      const taken = runs;
      runs = [];
      return taken;
    },
  };
}

function combined(outcomes: HookOutcome[]): Fired {
  const blocks = outcomes.filter((outcome) => outcome.decision === "block");
  const asked = outcomes.find((outcome) => outcome.decision === "ask");
  const allowed = outcomes.find((outcome) => outcome.decision === "allow");
  const permission = asked ?? allowed;
  return {
    block: blocks.length > 0 ? blocks.map((outcome) => outcome.reason).join("\n") : null,
    context: outcomes.flatMap((outcome) => (outcome.context ? [outcome.context] : [])),
    permission: permission
      ? { decision: permission.decision as PermissionHint["decision"], reason: permission.reason }
      : null,
    updatedInput: outcomes.find((outcome) => outcome.updatedInput)?.updatedInput ?? null,
  };
}

function nothingSaid(): Fired {
  return { block: null, context: [], permission: null, updatedInput: null };
}

function runEvent(
  hook: HookDefinition,
  run: { exitCode: number | null; durationMs: number },
  outcome: HookOutcome,
  toolUseId: string | undefined,
): HookRunEvent {
  return {
    type: "hook",
    event: hook.event,
    command: hook.command,
    source: hook.source,
    exitCode: run.exitCode,
    durationMs: Math.round(run.durationMs),
    decision: outcome.decision,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    ...(outcome.output ? { output: outcome.output } : {}),
    ...(toolUseId ? { toolUseId } : {}),
  };
}

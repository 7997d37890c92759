// A session ties the loop to its surroundings: each prompt is added to the history, every
// event is written to the session file before the next one is produced, and usage is summed.
// The REPL, one-shot mode and library users all drive the loop through this.

import { dirname, join } from "node:path";
import type { SubagentChannel } from "../agents/channel.js";
import type { BackgroundTasks } from "../background/tasks.js";
import type { Compaction } from "../compaction/compaction.js";
import {
  type BackgroundTaskEvent,
  type LoopEvent,
  type LoopStop,
  requestUsage,
} from "../core/events.js";
import { type Limit, maxCostLimit, repeatedCallLimit } from "../core/limits.js";
import {
  addUsage,
  emptyUsage,
  type Message,
  type Usage,
  type UserMessage,
} from "../core/messages.js";
import { noticeBlocks } from "../core/notices.js";
import type { Reminder } from "../core/reminders.js";
import type { TodoItem } from "../core/todo-item.js";
import type { SessionHooks, SessionStartSource } from "../hooks/session-hooks.js";
import { agentLoop, createLoopState, type LoopState } from "../loop.js";
import type { PermissionMode } from "../permissions/policy.js";
import type { PlanMode } from "../planning/plan-mode.js";
import type { TodoList } from "../planning/todo-list.js";
import { todoReminder } from "../planning/todo-reminder.js";
import type { Provider } from "../providers/provider.js";
import type { Toolbox } from "../tools/toolbox.js";
import { costOf } from "./cost.js";
import type { SessionWriter } from "./session-file.js";

export interface AgentSessionOptions {
  provider: Provider;
  toolbox: Toolbox;
  system: string;
  maxTurns: number;
  maxCostUsd?: number;
  writer: SessionWriter;
  /** History of a resumed session. */
  messages?: Message[];
  /** Keeps the history inside the model's context window; without it, none is made. */
  compaction?: Compaction;
  /** The model's plan, kept by the todo_write tool: announced as it changes, and reminded of. */
  todos?: TodoList;
  /**
   * Plan mode, and the permission mode now: a note goes with the prompt after the mode went into
   * or out of plan mode, and a plan presented with no one to approve it ends the run.
   */
  planning?: { plan: PlanMode; mode: () => PermissionMode };
  /** Background tasks (s11): announced, told to the model when they end, ended with the session. */
  tasks?: BackgroundTasks;
  /** Where the agent tool's children report: their events join this session's stream. */
  subagents?: SubagentChannel;
  /** The user's hooks at the session's steps (src/hooks/); their runs are recorded and announced. */
  hooks?: SessionHooks;
  /** Where a hook run that ends the session (SessionEnd) reports a failure. */
  onNotice?: (sentence: string) => void;
}

export interface AgentSession {
  readonly state: LoopState;
  readonly id: string;
  readonly model: string;
  /** Tokens used by every request of this session so far. */
  usage(): Usage;
  /** What those requests cost in US dollars, each at its model's price; null when one is unknown. */
  cost(): number | null;
  /** The todo list as it stands (empty without one). */
  todos(): readonly TodoItem[];
  /** The session's background tasks, if it has any. */
  readonly tasks: BackgroundTasks | undefined;
  /**
   * Ends the background tasks still running (close does it too) and returns their
   * `task_stopped` events, recorded in the session file.
   */
  endTasks(): Promise<BackgroundTaskEvent[]>;
  runPrompt(prompt: string, signal: AbortSignal): AsyncGenerator<LoopEvent, LoopStop>;
  /** Summarises the history now (the REPL's /compact), with an optional focus for the summary. */
  compact(focus: string | undefined, signal: AbortSignal): AsyncGenerator<LoopEvent, string>;
  /** How full the context window is for the next request; null without compaction. */
  contextFill(): { tokens: number; contextWindow: number } | null;
  /**
   * Goes on in another session file with its history (the REPL's /clear and /resume): the tools
   * and the model stay, the current file is closed, usage starts from nothing.
   */
  switchSession(next: {
    writer: SessionWriter;
    messages: Message[];
    compaction?: Compaction;
  }): void;
  /** Sends the following requests to another model (the REPL's /model); the old one is freed. */
  switchProvider(provider: Provider, compaction?: Compaction): Promise<void>;
  close(): Promise<void>;
}

export function createAgentSession(options: AgentSessionOptions): AgentSession {
  // The REPL's commands replace these between prompts; a prompt sees one of each throughout.
  let state = createLoopState(options.messages ?? []);
  let { writer, provider, compaction } = options;
  let usage = emptyUsage();
  let cost: number | null = 0;
  const limits: Limit[] = [repeatedCallLimit];
  if (options.maxCostUsd !== undefined) limits.push(maxCostLimit(options.maxCostUsd, () => cost));
  const { planning, hooks } = options;
  if (planning) limits.push(planning.plan.limit);
  const { todos, tasks } = options;
  const reminders: Reminder[] = todos ? [todoReminder(todos)] : [];
  const { subagents } = options;
  if (subagents) {
    // Children share the cost budget, and their files go beside this session's (it may switch).
    const transcriptDirectory = () => join(dirname(writer.path), writer.id, "agents");
    subagents.parent = { limits, transcriptDirectory };
  }
  // SessionStart runs at once; what it gives the model goes with the next prompt.
  const ending = new AbortController();
  let started: Promise<string[]> | null = null;
  const startHooks = (source: SessionStartSource) => {
    started = hooks ? hooks.sessionStart(source, ending.signal) : null;
  };
  startHooks(state.messages.length > 0 ? "resume" : "startup");

  const parts = (signal: AbortSignal) => ({
    provider,
    system: options.system,
    tools: options.toolbox.definitions,
    signal,
  });
  /** The hooks that ran since the last event, recorded and announced in their turn. */
  function* hookRuns(): Generator<LoopEvent> {
    for (const run of hooks?.takeRuns() ?? []) {
      writer.recordEvent(run);
      yield run;
    }
  }
  /** SessionStart's context, then UserPromptSubmit's; or the reason the prompt is not sent. */
  async function beforePrompt(prompt: string, signal: AbortSignal) {
    if (!hooks) return { context: [] };
    const fromStart = (await started) ?? [];
    const submitted = await hooks.promptSubmitted(prompt, signal);
    if ("block" in submitted) return submitted;
    started = null;
    return { context: [...fromStart, ...submitted.context] };
  }
  /** Every event is on disk, and its tokens counted, before the next one is produced. */
  const count = (used: Usage | null, model: string) => {
    if (!used) return;
    usage = addUsage(usage, used);
    const dollars = costOf(model, used);
    cost = cost === null || dollars === null ? null : cost + dollars;
  };
  /** The loop's next event; meanwhile, every event a running subagent reports. */
  async function* nextStep<Result>(events: AsyncGenerator<LoopEvent, Result>) {
    const step = events.next();
    if (!subagents) return await step;
    // Each wait ends with the step at the latest: a long session keeps no wait per event.
    const stepDone = new AbortController();
    const settled = step.then((value) => ({ value })).finally(() => stepDone.abort());
    while (true) {
      const first = await Promise.race([
        settled,
        subagents.waiting(stepDone.signal).then(() => null),
      ]);
      for (const { event, taken } of subagents.drain()) {
        writer.recordEvent(event);
        count(requestUsage(event.event), event.model);
        yield event;
        taken();
      }
      if (first) return first.value;
    }
  }
  async function* recorded<Result>(events: AsyncGenerator<LoopEvent, Result>) {
    while (true) {
      const step = yield* nextStep(events);
      // The hooks that ran while this step was made come before it.
      yield* hookRuns();
      if (step.done) return step.value;
      const event = step.value;
      writer.recordEvent(event);
      count(requestUsage(event), provider.model);
      yield event;
      // A tool that ran may have replaced the plan: every consumer learns it from the stream.
      const changed = event.type === "tool_end" ? todos?.takeChange() : null;
      if (changed) yield { type: "todos", todos: changed } satisfies LoopEvent;
      if (event.type === "compaction" && event.kind === "summary") startHooks("compact");
      yield* taskEvents();
    }
  }
  async function endTasks(): Promise<BackgroundTaskEvent[]> {
    await tasks?.endAll();
    return [...taskEvents()];
  }
  /** Background tasks started or stopped by a tool since the last look, recorded and announced. */
  function* taskEvents(): Generator<BackgroundTaskEvent> {
    for (const event of tasks?.takeEvents() ?? []) {
      writer.recordEvent(event);
      yield event;
    }
  }

  return {
    get state() {
      return state;
    },
    get id() {
      return writer.id;
    },
    get model() {
      return provider.model;
    },
    usage: () => usage,
    cost: () => cost,
    todos: () => todos?.items() ?? [],
    tasks,
    endTasks,
    async *runPrompt(prompt, signal) {
      const said = await beforePrompt(prompt, signal);
      yield* hookRuns();
      if ("block" in said) return yield* recorded(promptBlocked(said.block));
      // What the model must know of the mode, as a note beside the prompt: plan mode began or ended.
      const note = planning ? planning.plan.noteFor(planning.mode()) : null;
      // Tasks that ended while the model was idle are told with the prompt, after it.
      const notices = tasks?.notices() ?? [];
      const fromHooks = hooksNote(said.context);
      const notes = [
        ...(note ? [{ type: "text" as const, text: note }] : []),
        ...(fromHooks ? [{ type: "text" as const, text: fromHooks }] : []),
        ...noticeBlocks(notices),
      ];
      const message: UserMessage = {
        role: "user",
        content: notes.length > 0 ? [{ type: "text", text: prompt }, ...notes] : prompt,
      };
      state.messages.push(message);
      writer.recordMessage(message);
      for (const notice of notices) {
        writer.recordEvent(notice.event);
        yield notice.event;
      }
      return yield* recorded(
        agentLoop(state, {
          provider,
          toolbox: options.toolbox,
          system: options.system,
          maxTurns: options.maxTurns,
          signal,
          limits,
          compaction,
          reminders,
          beforeStop: hooks?.stopCheck(),
          notices: tasks?.notices,
        }),
      );
    },
    async *compact(focus, signal) {
      if (!compaction) return "Compaction is not available in this session.";
      if (state.messages.length < 3) return "There is nothing to compact yet.";
      const failed = yield* recorded(compaction.summarizeNow(state, parts(signal), focus));
      return failed ? failed.detail : "Compacted.";
    },
    contextFill() {
      return compaction?.fill(state, parts(new AbortController().signal)) ?? null;
    },
    switchSession(next) {
      writer.close();
      ({ writer, compaction } = next);
      state = createLoopState(next.messages);
      usage = emptyUsage();
      cost = 0;
      startHooks(next.messages.length > 0 ? "resume" : "clear");
    },
    async switchProvider(next, nextCompaction) {
      const previous = provider;
      provider = next;
      compaction = nextCompaction ?? compaction;
      await previous.dispose?.();
    },
    async close() {
      await endTasks();
      if (hooks) {
        await hooks.sessionEnd(ending.signal);
        // No one reads events any more: a failure is told on stderr.
        for (const run of hooks.takeRuns()) {
          writer.recordEvent(run);
          if (run.decision !== "error") continue;
          options.onNotice?.(`the ${run.event} hook "${run.command}" failed: ${run.reason}`);
        }
      }
      ending.abort();
      await options.toolbox.dispose();
      await provider.dispose?.();
      writer.close();
    },
  };
}

/** What the hooks gave the model for this prompt (UserPromptSubmit's, SessionStart's). */
function hooksNote(context: string[]): string | null {
  if (context.length === 0) return null;
  return `[agentloop: context from the user's hooks]\n${context.join("\n\n")}`;
}

/** A UserPromptSubmit hook blocked the prompt: it is not sent, nor added to the history. */
async function* promptBlocked(reason: string): AsyncGenerator<LoopEvent, LoopStop> {
  const detail = `A UserPromptSubmit hook blocked the prompt, which was not sent: ${reason}`;
  const stop: LoopStop = {
    type: "stop",
    reason: "error",
    detail,
    finalText: "",
    error: new Error(detail),
  };
  yield stop;
  return stop;
}

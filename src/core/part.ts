// A part is one chapter of the course joined to a session: the todo list and plan mode, hooks,
// skills, subagents, background tasks, MCP servers. It reaches the loop only through the seams
// the loop already has (tools, limits, reminders, notices, the step before stopping, tool-call
// hooks) and the session's own steps (a prompt, a compaction, a new history, the end), and it
// edits neither. A session is assembled from an ordered list of parts (src/assembly/parts.ts);
// that order is the order of their prompt notes, restated texts and events.
//
// Every field is optional: a part fills in what it contributes. None of the functions may throw
// unless its comment says so; a part that fails says so in its events or notes instead.

import type { CompactionTrigger, LoopEvent, LoopStop, LoopStopReason } from "./events.js";
import type { Limit } from "./limits.js";
import type { Message, ToolUseBlock } from "./messages.js";
import type { NoticeSource } from "./notices.js";
import type { PermissionMode } from "./permission-mode.js";
import type { Provider } from "./provider.js";
import type { Reminder } from "./reminders.js";
import type { PermissionHint, Tool, ToolCallHooks } from "./tool.js";

/** Who the tools are for: the session under its mode now, or a subagent under its own. */
export interface ToolOffer {
  mode: PermissionMode;
  /**
   * A subagent's loop: it gets a part's tools only when they work on its own (a child has no
   * todo list of its own, loads no skills and starts no background tasks).
   */
  forChild: boolean;
}

/**
 * The answer to a finished answer: go on with a message, stop saying why, or null to stop as it
 * would. A stop ends as "end_turn" unless `reason` names another: a goal judged impossible ends
 * as an "error" (exit 1), one over its budget as "max_turns" (exit 3).
 */
export type StopAnswer = { goOn: string } | { detail: string; reason?: LoopStopReason } | null;
/** Asked when the model's answer is done, before the loop stops (the loop's `beforeStop`). */
export type StopCheck = (answer: string, signal: AbortSignal) => Promise<StopAnswer>;

/** Text for the model that goes beside a prompt, and the event that announces it (if any). */
export interface PromptNote {
  text: string;
  event?: LoopEvent;
}

/** How a history began: a new session, a resumed one, /clear, or a compaction's summary. */
export type HistoryStart = "startup" | "resume" | "clear" | "compact";

/** Events that arrive while a step of the loop is still running (a subagent's, as it works). */
export interface SideEvents {
  /** Resolves once an event is waiting, or once `until` is aborted; leaves nothing behind then. */
  waiting(until: AbortSignal): Promise<void>;
  /** The events waiting, oldest first, removed; `taken` is called once every consumer had it. */
  drain(): { event: LoopEvent; taken(): void }[];
}

/**
 * A subagent's tools under its mode, made for it: the built-in ones and what every part offers
 * a child, with the permission check its calls go through under that mode.
 */
export interface ChildTools {
  tools: readonly Tool[];
  checkPermission(
    call: ToolUseBlock,
    tool: Tool,
    hint?: PermissionHint,
  ): Promise<{ allowed: true } | { allowed: false; reason: string }>;
  /** Around each of the child's calls, as around the session's. */
  hooks?: ToolCallHooks;
  /** Ends what the child's tools started; called when the child's run is over. */
  dispose(): Promise<void>;
}

/**
 * Which prompts a part queues the front end runs: the REPL whenever the session is idle; one-shot
 * mode only while a part still has work under way (`workUnderWay`), then it ends as it would;
 * the editor (ACP) and a library user who serves no queue never.
 */
export type QueuedPromptRuns = "when-idle" | "while-work-under-way" | "never";

/**
 * A prompt a part asks the front end to run once the session is idle, as if the person had typed
 * it after everything else (pi's `sendUserMessage(text, {deliverAs: "followUp"})`).
 */
export interface QueuedPrompt {
  text: string;
  /**
   * Sent again after its request failed: when the history still ends with this text unanswered,
   * the loop goes on from it instead of adding it a second time.
   */
  again?: boolean;
}

/** What became of a queued prompt: how its run stopped, or not run (no front end ran it). */
export type QueuedOutcome = { ran: true; stop: LoopStop } | { ran: false };

/** What a part may know of the session it joined (given once, to `attach`). */
export interface PartHost {
  /** The limits every request of the session is checked against (a child shares them). */
  readonly limits: readonly Limit[];
  /** The session's own directory, beside its file; it changes with /clear and /resume. */
  directory(): string;
  /**
   * The session's system prompt without the parts' sections (who the model is, the environment,
   * the project's instructions): what a subagent's own prompt is built on.
   */
  basePrompt(): string;
  /** The session's model as it is now (after /model, the new one), for requests of a part's own. */
  provider(): Provider;
  /**
   * The session's history as it is now: a new array after a compaction, /clear or /resume, and
   * growing as the loop runs. Read it; never change it.
   */
  history(): readonly Message[];
  /**
   * The tools for a subagent named `agentName` under `mode` (its questions name it); rejects
   * with a ConfigError when that mode's sandbox cannot start here. With `workspace` (a child in
   * its own git worktree, src/worktrees/) its commands, file tools, sandbox and permission
   * check take that directory as the workspace instead of the session's.
   */
  childTools(mode: PermissionMode, agentName: string, workspace?: string): Promise<ChildTools>;
  /**
   * Makes the session go on with `messages` as its history (a rewind of the conversation). Only
   * between prompts, or from `historyStarted`; the part records why in the session file itself,
   * and the other parts are not told.
   */
  replaceHistory(messages: Message[]): void;
  /**
   * Queues a prompt for when the session is idle: after the running prompt, never over a line
   * the person is typing. Resolves once it ran, or with `ran: false` when this front end does
   * not run it (see `runsQueuedPrompts`) or the session closed first.
   */
  queuePrompt(prompt: QueuedPrompt): Promise<QueuedOutcome>;
  /** Whether this front end runs queued prompts, and when. */
  runsQueuedPrompts(): QueuedPromptRuns;
  /** True while the front end waits for the person: no prompt or command runs. */
  isIdle(): boolean;
  /**
   * Events to show now: recorded in the session file, on the screen at once when the session is
   * idle (a command's, a timer's), else with the running prompt's next event.
   */
  announce(events: LoopEvent[]): void;
}

/**
 * A REPL command a part adds (`/hooks`, `/tasks`): what it prints, as plain text. Events it
 * announces through its host (`PartHost.announce`) are on the screen before the next prompt.
 */
export interface PartCommand {
  /** With its slash: `/tasks`. */
  name: string;
  /** How the argument is written in /help: `[focus]`, `ID`; empty when there is none. */
  argument: string;
  help: string;
  /** The lines to print; may throw a ConfigError, shown as its sentence. */
  run(argument: string): Promise<string> | string;
}

export interface SessionPart {
  /** Short and unique: it names the part in the order test and in the docs. */
  readonly name: string;
  /**
   * The tools this part offers to `offer`, called whenever the toolbox reads its list (each
   * turn): it must return the same array until its tools change.
   */
  tools?(offer: ToolOffer): readonly Tool[];
  /** Checked before every request; the first that is hit stops the loop. */
  readonly limits?: readonly Limit[];
  /** Notes added to each turn's last tool result, when they have something to say. */
  readonly reminders?: readonly Reminder[];
  /** What ended beside the loop, told to the model after a turn's results (each notice once). */
  readonly notices?: NoticeSource;
  /** Around each tool call, in list order before it and after it. */
  readonly toolHooks?: ToolCallHooks;
  /** A fresh check for one prompt's run; the first part that answers decides. */
  stopCheck?(): StopCheck;
  /**
   * Asked before a prompt joins the history: a sentence to refuse it with (it is not sent), or
   * null. The parts are asked in list order until one refuses.
   */
  screenPrompt?(prompt: string, signal: AbortSignal): Promise<string | null>;
  /** Notes to send after the prompt's text, once the prompt was admitted. */
  promptNotes?(): PromptNote[];
  /** A section of the system prompt, after agentloop's own lines (written once per session). */
  systemPrompt?(): string | null;
  /** A paragraph restated beside a compaction's summary, or null when there is nothing to keep. */
  restated?(): string | null;
  /** Runs before a summary is made. */
  beforeCompact?(
    trigger: CompactionTrigger,
    focus: string | undefined,
    signal: AbortSignal,
  ): Promise<void>;
  /** Events this part produced since it was last asked, passed on before the loop's next event. */
  eventsBefore?(): LoopEvent[];
  /** Events that follow a loop event (the todo list it changed, the tasks it started). */
  eventsAfter?(event: LoopEvent): LoopEvent[];
  /** Events that reach the session while a step is still running. */
  readonly sideEvents?: SideEvents;
  /** Called once, when the session is made. */
  attach?(host: PartHost): void;
  /**
   * The session became idle: the front end waits for the person and nothing runs (the time to
   * queue a prompt that waited for a busy session).
   */
  idle?(): void;
  /**
   * True while this part has work of its own under way that may still queue prompts (a
   * teammate): one-shot mode waits for it and runs what it queues before it ends.
   */
  workUnderWay?(): boolean;
  /** A history began: the session's first, or another after /clear, /resume or a summary. */
  historyStarted?(start: HistoryStart, messages: readonly Message[]): void;
  /** A few words for the REPL's status line (`2 scheduled jobs`), or null when it has none. */
  status?(): string | null;
  /** Commands the REPL offers while this part is in the session. */
  readonly commands?: readonly PartCommand[];
  /**
   * Ends the work this part keeps going beside the loop (background tasks) once the answer is
   * in: one-shot mode does it before printing its result, and a closing session does it first.
   * Returns the events that ending produced.
   */
  endWork?(): Promise<LoopEvent[]>;
  /**
   * Ends what the part started, when the session closes: called in the reverse of list order.
   * Returns the events that ending produced, for the session file (no one reads the stream then).
   */
  close?(): Promise<LoopEvent[]>;
}

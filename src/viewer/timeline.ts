// What the viewer replays, computed once from a session file: the conversation as a person
// reads it, and one step per request sent to the model, each knowing the exact messages[] it
// sent. A request sent the history the loop held just before its reply was recorded: every
// message so far, as compaction left them (see contexts.ts). A summary compaction is a request
// too, and gets a step of its own. Each step also shows the reply and the tool results it led to.

import { describeTask } from "../background/task-line.js";
import type {
  BackgroundTaskEvent,
  CompactionTrigger,
  HookRunEvent,
  LoopStopReason,
  TransitionReason,
} from "../core/events.js";
import type { Message, StopReason, ToolResultBlock, Usage } from "../core/messages.js";
import type { TodoItem } from "../core/todo-item.js";
import type {
  SessionContents,
  SessionEntry,
  SessionHeader,
  SessionProblem,
} from "../session/session-file.js";
import { type Beat, BeatLog } from "./beats.js";
import { ContextReplay } from "./contexts.js";
import { isKnownBlock } from "./known-block.js";
import { StandingLists } from "./standing-lists.js";
import type { SubagentRun } from "./subagent-runs.js";

export type ConversationItem =
  /** `label` names a message the loop wrote for itself, such as a summary request. */
  | { kind: "message"; index: number; label?: string }
  | CompactionItem
  | { kind: "stop"; reason: LoopStopReason; detail: string }
  | { kind: "repair"; description: string }
  /** A background task started, ended (its notice went to the model) or was stopped. */
  /** A line beside the step it happened in: a background task, a part's event. */
  | { kind: "marker"; line: string }
  /** One of the user's hooks ran, shown where it ran: at its tool call, its prompt, its stop. */
  | ({ kind: "hook" } & Omit<HookRunEvent, "type">);

/** The boundary where the history was compacted; requests after it send the compacted one. */
export interface CompactionItem {
  kind: "compaction";
  method: "clear" | "summary";
  trigger: CompactionTrigger;
  tokensBefore: number | null;
  tokensAfter: number | null;
  contextWindow: number | null;
  /** How many tool results were cleared, or how many messages were summarised. */
  count: number;
  /** Why the loop went on, when it said so for a request that got no reply ("compact_retry"). */
  transitionReason: TransitionReason | null;
}

export interface Reply {
  /** Index of the assistant message in `messages`. */
  index: number;
  turn: number | null;
  stopReason: StopReason | null;
  usage: Usage | null;
  durationMs: number | null;
}

export interface Step {
  /** 1-based number of the request. */
  request: number;
  /** The request sent `contexts[context].slice(0, sentCount)`, indexes into `messages`. */
  context: number;
  sentCount: number;
  /** `items.slice(0, shownCount)` is the conversation on screen at this step. */
  shownCount: number;
  /** Null when the session ends before the model answered this request. */
  reply: Reply | null;
  /** Set for the request that asked the model to summarise the history. */
  summary: { summarizedCount: number } | null;
  /** Index in `items` of the compaction whose result this request is the first to send. */
  compaction: number | null;
  /** Why the loop went on to another turn after this one, if it did. */
  transitionReason: TransitionReason | null;
  /** Set when the loop stopped after this request. */
  stop: { reason: LoopStopReason; detail: string } | null;
  /** The model's todo list as it stood when this request was sent (empty without one). */
  todos: TodoItem[];
  /** The skills loaded when this request was sent, by name, oldest first. */
  skills: string[];
}

export interface Timeline {
  header: SessionHeader | null;
  /** Every recorded message, and the messages compactions made (see contexts.ts). */
  messages: Message[];
  /** Histories as arrays of indexes into `messages`; each step sends a prefix of one. */
  contexts: number[][];
  items: ConversationItem[];
  steps: Step[];
  problems: SessionProblem[];
  /** The agent tool's children, by the id of the call that ran each (see subagent-runs.ts). */
  subagents: Record<string, SubagentRun>;
  /** Everything the loop and the chapters did, one beat each, with the code that did it. */
  beats: Beat[];
}

/** The messages[] a step's request sent, as indexes into `timeline.messages`. */
export function sentIndexes(timeline: Timeline, step: Step): number[] {
  return (timeline.contexts[step.context] ?? []).slice(0, step.sentCount);
}

/** The messages[] a step's request sent. */
export function sentMessages(timeline: Timeline, step: Step): Message[] {
  return sentIndexes(timeline, step).map((index) => timeline.messages[index] as Message);
}

type CompactionEntry = Extract<SessionEntry, { type: "compaction" }>;

export function buildTimeline(
  session: SessionContents,
  subagents: Record<string, SubagentRun> = {},
): Timeline {
  const builder = new TimelineBuilder();
  for (const entry of session.entries) builder.read(entry);
  const { messages, contexts, items, steps, beats } = builder.finish();
  const { header, problems } = session;
  return { header, messages, contexts, items, steps, problems, subagents, beats };
}

class TimelineBuilder {
  private readonly replay = new ContextReplay();
  private readonly beats = new BeatLog(this.replay);
  private readonly standing = new StandingLists();
  private readonly items: ConversationItem[] = [];
  private readonly steps: Step[] = [];
  /** The step that items belong to until something starts the next request's input. */
  private open: Step | null = null;
  /** A prompt was recorded after the latest step: input to a request not answered yet. */
  private awaitingRequest = false;
  /** Index in `items` of the latest compaction that no request has sent the result of yet. */
  private compaction: number | null = null;
  /** A turn that got no reply (a request refused as too long) ended before its compaction. */
  private transition: TransitionReason | null = null;

  read(entry: SessionEntry): void {
    switch (entry.type) {
      case "message":
        this.message(entry);
        return;
      case "turn_end":
        this.turnEnd(entry.turn, entry.transitionReason);
        return;
      case "stop": {
        const { reason, detail } = entry;
        this.beats.other("loop.stop", this.items.length, reason);
        this.items.push({ kind: "stop", reason, detail });
        const stopped = this.open ?? (this.awaitingRequest ? null : this.steps.at(-1));
        if (stopped) stopped.stop = { reason, detail };
        this.belongToOpenStep();
        return;
      }
      case "repair":
        // A repair changes what the next request sends, so it is shown with that request.
        this.beats.other("session.repair", this.items.length);
        this.items.push({ kind: "repair", description: entry.description });
        this.open = null;
        return;
      case "compaction":
        this.compact(entry);
        return;
      case "task_started":
      case "task_notification":
      case "task_stopped":
        // Beside the step it happened in; a notice's text is in the message that carries it.
        this.beats.other(`background.${entry.type}`, this.items.length);
        this.items.push({ kind: "marker", line: taskLine(entry) });
        return;
      case "part":
        this.partEvent(entry);
        return;
      case "hook": {
        const { type: _type, at: _at, ...run } = entry;
        this.beats.hook(run.event, this.items.length, run.toolUseId);
        this.items.push({ kind: "hook", ...run });
        return;
      }
    }
  }

  finish(): Pick<Timeline, "messages" | "contexts" | "items" | "steps" | "beats"> {
    const { items, steps, replay } = this;
    const trailing = items.slice(steps.at(-1)?.shownCount ?? 0);
    if (trailing.some((item) => item.kind === "message")) {
      // Input was recorded but no reply: the session ended while this request was pending.
      const stop = trailing.findLast((item) => item.kind === "stop");
      const pending = this.addStep({
        context: replay.current,
        sentCount: replay.length,
        reply: null,
        summary: null,
      });
      pending.stop = stop ? { reason: stop.reason, detail: stop.detail } : null;
    } else {
      const last = steps.at(-1);
      if (last) last.shownCount = items.length;
    }
    this.beats.placeOnSteps(steps.map((step) => step.shownCount));
    const { beats } = this.beats;
    return { messages: replay.messages, contexts: replay.contexts, items, steps, beats };
  }

  private message(entry: Extract<SessionEntry, { type: "message" }>): void {
    const results = toolResults(entry.message);
    this.beats.toolsRan(results);
    const sentCount = this.replay.length;
    const index = this.replay.append(entry.message);
    const item = this.items.push({ kind: "message", index }) - 1;
    if (entry.message.role === "assistant") {
      this.beats.reply(entry.message, item, { context: this.replay.current, count: sentCount });
      this.open = this.addStep({
        context: this.replay.current,
        sentCount,
        reply: {
          index,
          turn: entry.turn ?? null,
          stopReason: entry.stopReason ?? null,
          usage: entry.usage ?? null,
          durationMs: entry.durationMs ?? null,
        },
        summary: null,
      });
    } else if (results.length > 0) {
      this.beats.resultsAppended(item);
      this.belongToOpenStep();
    } else {
      // A prompt (or a loop-written nudge, recorded with its turn) is input to the next request.
      if (entry.turn === undefined) this.beats.prompt(item);
      else this.beats.continuation(item);
      this.open = null;
      this.awaitingRequest = true;
    }
    // After its step is added: a reply's own todo_write call is seen from the next request on.
    this.standing.add(entry.message);
  }

  private partEvent(entry: Extract<SessionEntry, { type: "part" }>): void {
    const history = entry.history as Record<string, unknown> | undefined;
    if (typeof history?.mark === "string") this.replay.mark(history.mark);
    // Like a repair, a rewind changes what the next request sends: it is shown with that one.
    if (typeof history?.backTo === "string" && this.replay.backTo(history.backTo)) this.open = null;
    this.beats.other(`${entry.part}.${entry.name}`, this.items.length);
    this.items.push({ kind: "marker", line: entry.line });
  }

  private turnEnd(turn: number, reason: TransitionReason | null): void {
    this.beats.turnEnd(reason);
    const last = this.steps.at(-1);
    const compaction = this.compaction === null ? null : this.items[this.compaction];
    if (last && sameTurn(last, turn)) last.transitionReason = reason;
    // A turn whose request got no reply has no step: its reason goes with the compaction.
    else if (compaction?.kind === "compaction") compaction.transitionReason ??= reason;
    else this.transition = reason;
  }

  private compact(entry: CompactionEntry): void {
    const { replay, items } = this;
    const item = compactionItem(entry, this.transition);
    this.transition = null;
    if (entry.kind === "clear") {
      replay.clear(entry.cleared);
      items.push(item);
      // Like a repair, it changes what the next request sends, so it is shown with that one.
      this.open = null;
    } else {
      const request = replay.summaryRequest(item.count, String(entry.instructions ?? ""));
      const reply = replay.add({
        role: "assistant",
        content: [{ type: "text", text: String(entry.summary ?? "") }],
      });
      items.push(
        { kind: "message", index: request.instructions, label: "summary request" },
        { kind: "message", index: reply, label: "summary" },
        item,
      );
      const sentCount = replay.contexts[request.context]?.length ?? 1;
      this.open = this.addStep({
        context: request.context,
        sentCount,
        reply: {
          index: reply,
          turn: null,
          stopReason: null,
          usage: entry.usage ?? null,
          durationMs: entry.durationMs ?? null,
        },
        summary: { summarizedCount: sentCount - 1 },
      });
      replay.replaceWith(entry.messages);
    }
    this.beats.other(`compaction.${entry.kind}`, items.length - 1);
    this.compaction = items.length - 1;
  }

  private addStep(step: Pick<Step, "context" | "sentCount" | "reply" | "summary">): Step {
    const added: Step = {
      request: this.steps.length + 1,
      ...step,
      shownCount: this.items.length,
      compaction: this.compaction,
      transitionReason: null,
      stop: null,
      todos: this.standing.todos,
      skills: this.standing.skills,
    };
    this.steps.push(added);
    this.compaction = null;
    this.transition = null;
    this.awaitingRequest = false;
    return added;
  }

  private belongToOpenStep(): void {
    if (this.open) this.open.shownCount = this.items.length;
  }
}

function compactionItem(
  entry: CompactionEntry,
  transition: TransitionReason | null,
): CompactionItem {
  const count =
    entry.kind === "clear" ? entry.cleared.length : (countOrNull(entry.summarizedCount) ?? 0);
  return {
    kind: "compaction",
    method: entry.kind,
    trigger: entry.trigger,
    tokensBefore: countOrNull(entry.tokensBefore),
    tokensAfter: countOrNull(entry.tokensAfter),
    contextWindow: countOrNull(entry.contextWindow),
    count,
    transitionReason: transition,
  };
}

/** The session file is read leniently: a number the loop wrote may be missing from a damaged one. */
function countOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/** A summary request is no turn; a step without a recorded turn is taken to be this one. */
function sameTurn(step: Step, turn: number): boolean {
  if (step.summary) return false;
  const stepTurn = step.reply?.turn ?? null;
  return stepTurn === null || stepTurn === turn;
}

function toolResults(message: Message): ToolResultBlock[] {
  if (typeof message.content === "string") return [];
  return message.content.filter(
    (block): block is ToolResultBlock => isKnownBlock(block) && block.type === "tool_result",
  );
}

function taskLine(event: BackgroundTaskEvent): string {
  switch (event.type) {
    case "task_started":
      return `Background task started: ${describeTask(event.task)}`;
    case "task_notification":
      return `Background task ended, the model is told: ${describeTask(event.task)}`;
    case "task_stopped":
      return `Background task stopped (${event.by === "task_stop" ? "by task_stop" : "the session ended"}): ${describeTask(event.task)}`;
  }
}

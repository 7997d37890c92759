// A session ties the loop to its surroundings: each prompt is added to the history, every
// event is written to the session file before the next one is produced, and usage is summed.
// The REPL, one-shot mode and library users all drive the loop through this.

import { dirname, join } from "node:path";
import type { Compaction } from "../compaction/compaction.js";
import { ConfigError } from "../core/errors.js";
import {
  dollarsBeyondTokens,
  type LoopEvent,
  type LoopStop,
  requestModel,
  requestUsage,
} from "../core/events.js";
import { type Limit, maxCostLimit, repeatedCallLimit } from "../core/limits.js";
import {
  addUsage,
  emptyUsage,
  type Message,
  type TextBlock,
  type Usage,
  type UserMessage,
} from "../core/messages.js";
import type {
  HistoryStart,
  PartHost,
  QueuedPrompt,
  QueuedPromptRuns,
  SessionPart,
} from "../core/part.js";
import { agentLoop, createLoopState, type LoopState } from "../loop.js";
import type { Provider } from "../providers/provider.js";
import type { Toolbox } from "../tools/toolbox.js";
import { costOf } from "./cost.js";
import {
  eventsAfter,
  eventsBefore,
  limitsOf,
  noticesOf,
  promptNotesOf,
  refusalOf,
  remindersOf,
  stopCheckOf,
} from "./parts-together.js";
import { createPromptQueue } from "./prompt-queue.js";
import type { SessionWriter } from "./session-file.js";
import { sideEventsOf } from "./side-events.js";

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
  /**
   * The chapters joined to this session (src/core/part.ts), in the order of their notes,
   * restated texts and events. Their tools are in `toolbox` already; the session closes them.
   */
  parts?: readonly SessionPart[];
  /** The system prompt without the parts' sections (PartHost.basePrompt); default `system`. */
  basePrompt?: string;
  /** How a part gets the tools of a subagent (src/assembly/); without it, a part gets none. */
  childTools?: PartHost["childTools"];
}

export interface AgentSession {
  readonly state: LoopState;
  readonly id: string;
  readonly model: string;
  readonly parts: readonly SessionPart[];
  /** Tokens used by every request of this session so far. */
  usage(): Usage;
  /** What those requests cost in US dollars, each at its model's price; null when one is unknown. */
  cost(): number | null;
  /** `again`: a queued prompt sent again after its request failed (QueuedPrompt.again). */
  runPrompt(
    prompt: string,
    signal: AbortSignal,
    options?: { again?: boolean },
  ): AsyncGenerator<LoopEvent, LoopStop>;
  /**
   * The front end runs the prompts parts queue (`runs` says when; without this call, never);
   * `wake` hears each prompt queued and each event announced, so it can serve them.
   */
  serveQueuedPrompts(runs: Exclude<QueuedPromptRuns, "never">, wake: () => void): void;
  /** The oldest queued prompt as a run of it (its outcome goes back to the part), or null. */
  nextQueued(): QueuedRun | null;
  /** The events parts announced since the last look, recorded in the session file. */
  announced(): LoopEvent[];
  /** The front end waits for the person now: the parts hear it (`SessionPart.idle`). */
  idle(): void;
  /** True while a part has work under way that may still queue prompts. */
  workUnderWay(): boolean;
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
  /**
   * Ends the work the parts keep going beside the loop (background tasks), once the answer is
   * in; returns the events that ending produced, recorded in the session file. close does it too.
   */
  endWork(): Promise<LoopEvent[]>;
  close(): Promise<void>;
}

/** A prompt a part queued, ready to run as the person's prompts run. */
export interface QueuedRun {
  readonly prompt: QueuedPrompt;
  run(signal: AbortSignal): AsyncGenerator<LoopEvent, LoopStop>;
}

export function createAgentSession(options: AgentSessionOptions): AgentSession {
  // The REPL's commands replace these between prompts; a prompt sees one of each throughout.
  let state = createLoopState(options.messages ?? []);
  let { writer, provider, compaction } = options;
  const parts = options.parts ?? [];
  let usage = emptyUsage();
  let cost: number | null = 0;
  const limits: Limit[] = [repeatedCallLimit];
  if (options.maxCostUsd !== undefined) limits.push(maxCostLimit(options.maxCostUsd, () => cost));
  limits.push(...limitsOf(parts));
  const reminders = remindersOf(parts);
  const notices = noticesOf(parts);
  const sideEvents = sideEventsOf(parts);
  // A part's children share the limits, and their files go beside this session's (it may switch).
  const directory = () => join(dirname(writer.path), writer.id);
  const childTools = options.childTools ?? noChildTools;
  const basePrompt = () => options.basePrompt ?? options.system;
  const history = () => state.messages;
  const replaceHistory = (messages: Message[]) => {
    state = createLoopState(messages);
  };
  const queue = createPromptQueue();
  const workUnderWay = () => parts.some((part) => part.workUnderWay?.() === true);
  // Idle from when the front end says it waits for the person until it runs anything again.
  let idle = false;
  const host: PartHost = {
    limits,
    directory,
    childTools,
    basePrompt,
    provider: () => provider,
    history,
    replaceHistory,
    // One-shot mode takes a prompt only from a part whose work is under way (a teammate's).
    queuePrompt: (prompt) =>
      queue.runs() === "while-work-under-way" && !workUnderWay()
        ? Promise.resolve({ ran: false })
        : queue.queue(prompt),
    runsQueuedPrompts: () => queue.runs(),
    isIdle: () => idle,
    announce: (events) => queue.announce(events),
  };
  for (const part of parts) part.attach?.(host);
  const historyStarted = (start: HistoryStart) => {
    for (const part of parts) part.historyStarted?.(start, state.messages);
  };
  historyStarted(state.messages.length > 0 ? "resume" : "startup");

  const requestParts = (signal: AbortSignal) => ({
    provider,
    system: options.system,
    tools: options.toolbox.definitions,
    signal,
  });
  /** Events the parts produced since the last look, recorded and passed on. */
  function* partEvents(events: LoopEvent[]): Generator<LoopEvent> {
    for (const event of events) {
      writer.recordEvent(event);
      count(event);
      yield event;
    }
  }
  /** Every event is on disk, and its tokens counted, before the next one is produced. */
  const count = (event: LoopEvent) => {
    const inner = event.type === "subagent" ? event.event : event;
    if (cost !== null) cost += dollarsBeyondTokens(inner);
    const used = requestUsage(inner);
    if (!used) return;
    usage = addUsage(usage, used);
    const dollars = costOf(requestModel(event) ?? provider.model, used);
    cost = cost === null || dollars === null ? null : cost + dollars;
  };
  /** The loop's next event; meanwhile, every event a part reports while the step runs. */
  async function* nextStep<Result>(events: AsyncGenerator<LoopEvent, Result>) {
    const step = events.next();
    if (!sideEvents) return await step;
    // Each wait ends with the step at the latest: a long session keeps no wait per event.
    const stepDone = new AbortController();
    const settled = step.then((value) => ({ value })).finally(() => stepDone.abort());
    while (true) {
      const first = await Promise.race([
        settled,
        sideEvents.waiting(stepDone.signal).then(() => null),
      ]);
      for (const { event, taken } of sideEvents.drain()) {
        writer.recordEvent(event);
        count(event);
        yield event;
        taken();
      }
      if (first) return first.value;
    }
  }
  async function* recorded<Result>(events: AsyncGenerator<LoopEvent, Result>) {
    while (true) {
      const step = yield* nextStep(events);
      // What the parts did while this step was made (the hooks that ran) comes before it.
      yield* partEvents(eventsBefore(parts));
      yield* partEvents(queue.takeAnnounced());
      if (step.done) return step.value;
      const event = step.value;
      writer.recordEvent(event);
      count(event);
      yield event;
      if (event.type === "compaction" && event.kind === "summary") historyStarted("compact");
      // A tool that ran may have changed a part's state: every consumer learns it from the stream.
      yield* partEvents(eventsAfter(parts, event));
    }
  }
  function loopOn(signal: AbortSignal) {
    return agentLoop(state, {
      provider,
      toolbox: options.toolbox,
      system: options.system,
      maxTurns: options.maxTurns,
      signal,
      limits,
      compaction,
      reminders,
      beforeStop: stopCheckOf(parts),
      notices,
    });
  }
  async function endWork(): Promise<LoopEvent[]> {
    const ended: LoopEvent[] = [];
    for (const part of parts) ended.push(...((await part.endWork?.()) ?? []));
    for (const event of ended) writer.recordEvent(event);
    return ended;
  }

  const session: AgentSession = {
    get state() {
      return state;
    },
    get id() {
      return writer.id;
    },
    get model() {
      return provider.model;
    },
    parts,
    usage: () => usage,
    cost: () => cost,
    endWork,
    async *runPrompt(prompt, signal, runOptions) {
      idle = false;
      // A queued prompt whose request failed is still the history's last message: go on from it.
      if (runOptions?.again && unanswered(state.messages, prompt)) {
        return yield* recorded(loopOn(signal));
      }
      const refusal = await refusalOf(parts, prompt, signal);
      yield* partEvents(eventsBefore(parts));
      if (refusal !== null) return yield* recorded(promptRefused(refusal));
      // What the parts have to tell the model goes beside the prompt, after it.
      const notes = promptNotesOf(parts);
      const blocks: TextBlock[] = notes.map((note) => ({ type: "text", text: note.text }));
      const message: UserMessage = {
        role: "user",
        content: blocks.length > 0 ? [{ type: "text", text: prompt }, ...blocks] : prompt,
      };
      // @step loop.prompt: The person's prompt joins messages[], with the parts' notes beside it.
      state.messages.push(message);
      writer.recordMessage(message);
      for (const { event } of notes) {
        if (!event) continue;
        writer.recordEvent(event);
        yield event;
      }
      return yield* recorded(loopOn(signal));
    },
    serveQueuedPrompts: (runs, wake) => queue.serve(runs, wake),
    nextQueued() {
      const entry = queue.take();
      if (!entry) return null;
      const { prompt, settle } = entry;
      return {
        prompt,
        async *run(signal) {
          try {
            const stop = yield* session.runPrompt(prompt.text, signal, { again: prompt.again });
            settle({ ran: true, stop });
            return stop;
          } finally {
            settle({ ran: false });
          }
        },
      };
    },
    announced: () => [...partEvents(queue.takeAnnounced())],
    idle() {
      idle = true;
      for (const part of parts) part.idle?.();
    },
    workUnderWay,
    async *compact(focus, signal) {
      idle = false;
      if (!compaction) return "Compaction is not available in this session.";
      if (state.messages.length < 3) return "There is nothing to compact yet.";
      const failed = yield* recorded(compaction.summarizeNow(state, requestParts(signal), focus));
      return failed ? failed.detail : "Compacted.";
    },
    contextFill() {
      return compaction?.fill(state, requestParts(new AbortController().signal)) ?? null;
    },
    switchSession(next) {
      writer.close();
      ({ writer, compaction } = next);
      state = createLoopState(next.messages);
      usage = emptyUsage();
      cost = 0;
      historyStarted(next.messages.length > 0 ? "resume" : "clear");
    },
    async switchProvider(next, nextCompaction) {
      const previous = provider;
      provider = next;
      compaction = nextCompaction ?? compaction;
      await previous.dispose?.();
    },
    async close() {
      idle = false;
      queue.dropAll();
      for (const event of queue.takeAnnounced()) writer.recordEvent(event);
      await endWork();
      // The reverse of the list: a part closes before those it was built on.
      for (const part of [...parts].reverse()) {
        for (const event of (await part.close?.()) ?? []) writer.recordEvent(event);
      }
      await options.toolbox.dispose();
      await provider.dispose?.();
      writer.close();
    },
  };
  return session;
}

/** True when the history ends with `prompt` as the person's message, with no answer yet. */
function unanswered(messages: readonly Message[], prompt: string): boolean {
  const last = messages.at(-1);
  if (last?.role !== "user") return false;
  const first = typeof last.content === "string" ? last.content : last.content[0];
  const text = typeof first === "string" ? first : first?.type === "text" ? first.text : undefined;
  return text === prompt;
}

/** A part refused the prompt: it is not sent, nor added to the history. */
async function* promptRefused(detail: string): AsyncGenerator<LoopEvent, LoopStop> {
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

async function noChildTools(): Promise<never> {
  throw new ConfigError("This session makes no tools for subagents.");
}

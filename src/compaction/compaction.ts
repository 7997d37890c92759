// Keeps the history inside the model's context window, in three layers: clear old tool
// results, summarise when clearing is not enough, and recover when the API still says the
// request is too long. The loop calls it before every request and after a "too long" answer.

import { ProviderError } from "../core/errors.js";
import type { CompactionEvent, CompactionTrigger, LoopEvent } from "../core/events.js";
import type { LimitHit } from "../core/limits.js";
import type { LoopState, TurnEnd } from "../core/loop-state.js";
import { type Message, textOf } from "../core/messages.js";
import { count } from "../core/wording.js";
import type { ModelReply, Provider, ToolDefinition } from "../providers/provider.js";
import { clearOldResults } from "./clear-results.js";
import { createSizeEstimator, type RequestText } from "./estimate.js";
import {
  firstPromptOf,
  historyAfterSummary,
  keptTurnsStart,
  summaryInstructions,
} from "./summary.js";

/** What compaction needs of the next request: its fixed parts, and the model to summarise with. */
export interface CompactionRequest extends RequestText {
  provider: Provider;
  tools: ToolDefinition[];
  signal: AbortSignal;
}

export interface Compaction {
  /** How full the window is for the next request, for people (the REPL's summary line). */
  fill(state: LoopState, request: RequestText): { tokens: number; contextWindow: number };
  /** Before each request: compacts when the request would not fit comfortably. */
  beforeRequest(
    state: LoopState,
    request: CompactionRequest,
  ): AsyncGenerator<LoopEvent, LimitHit | null>;
  /**
   * A request failed: when the API said it was too long, learns the window, compacts harder and
   * says to send again (transition compact_retry); when that smaller request was refused too,
   * stops with context_too_long, saying so. Null for any other failure, the loop's to report.
   */
  retryTooLong(
    state: LoopState,
    error: unknown,
    request: CompactionRequest,
  ): AsyncGenerator<LoopEvent, TurnEnd | null>;
  /** Summarises now, whatever the size (the user's /compact). */
  summarizeNow(
    state: LoopState,
    request: CompactionRequest,
    focus?: string,
  ): AsyncGenerator<LoopEvent, LimitHit | null>;
}

export interface CompactionSettings {
  contextWindow: number;
  /** Tokens kept free for the reply: the provider's max_tokens. */
  outputReserve: number;
  /** False: compact only when asked (/compact) or when the API says the request is too long. */
  auto: boolean;
  /** Where the content of cleared tool results is saved, for the model to read again. */
  resultsDirectory: string;
  /**
   * State the model keeps across turns (its todo list), as text restated beside every summary,
   * so that it outlives the turns summarised; null when there is none.
   */
  restate?: () => string | null;
  /** Awaited before each summary request (the PreCompact hooks, src/hooks/). */
  beforeSummary?: (
    trigger: CompactionTrigger,
    focus: string | undefined,
    signal: AbortSignal,
  ) => Promise<void>;
}

/** Old results are cleared once the request passes this share of the window... */
const CLEAR_AT = 0.5;
/**
 * ...and never later than this many tokens: past it, every request pays for old output the
 * model no longer needs. Measured on bench/compaction.ts, clearing at 80,000 instead of 100,000
 * sends a quarter fewer bytes and costs a fifth less, cache reads included.
 */
const CLEAR_AT_MOST = 80_000;
/**
 * The newest results kept whole after clearing, as a share of the clearing threshold. Clearing
 * well below the threshold makes the next clear many turns away, so the cached prefix holds.
 */
const KEEP_AFTER_CLEARING = 0.3;
/** A summary is made before the request (with the reply's reserve) passes this share. */
const SUMMARIZE_AT = 0.85;
/** The recent turns kept whole beside a summary, as a share of the window. */
const KEEP_BESIDE_SUMMARY = 0.2;

export function createCompaction(settings: CompactionSettings): Compaction {
  const estimator = createSizeEstimator();
  let contextWindow = settings.contextWindow;
  const reserve = () => Math.min(settings.outputReserve, Math.floor(contextWindow / 4));
  const clearAt = () => Math.min(CLEAR_AT * contextWindow, CLEAR_AT_MOST);
  const summarizeAt = () => SUMMARIZE_AT * contextWindow - reserve();
  const size = (request: RequestText, messages: readonly Message[]) =>
    estimator.tokens(request, messages);
  const tokensOfText = (text: string) => estimator.tokens({ system: text, tools: [] }, []);
  const tokensOfMessage = (message: Message) =>
    estimator.tokens({ system: "", tools: [] }, [message]);

  /** Replaces old results by stubs, keeping the newest `keepTokens` whole. */
  function* clear(
    state: LoopState,
    request: RequestText,
    trigger: CompactionTrigger,
    keepTokens: number,
  ) {
    const started = performance.now();
    const before = size(request, state.messages);
    const { messages, cleared } = clearOldResults(state.messages, {
      keepTokens,
      tokensOf: tokensOfText,
      directory: settings.resultsDirectory,
    });
    if (cleared.length === 0) return false;
    // @step compaction.clear: Old tool results give way to short stubs as the window fills.
    state.messages = messages;
    state.lastRequestSize = null;
    const event: CompactionEvent = {
      type: "compaction",
      kind: "clear",
      trigger,
      tokensBefore: before,
      tokensAfter: size(request, messages),
      contextWindow,
      durationMs: performance.now() - started,
      cleared,
    };
    yield event;
    return true;
  }

  /** Asks the model for a summary of the older turns and starts the history over from it. */
  async function* summarize(
    state: LoopState,
    request: CompactionRequest,
    trigger: CompactionTrigger,
    focus?: string,
  ): AsyncGenerator<LoopEvent, LimitHit | null> {
    const before = size(request, state.messages);
    const largest = Math.max(0, ...state.messages.map(tokensOfMessage));
    if (largest > contextWindow - reserve()) return oneMessageTooLong(largest);
    // Asked for by the user, a compaction keeps only the latest turn beside the summary.
    const keepTokens = trigger === "manual" ? 0 : KEEP_BESIDE_SUMMARY * contextWindow;
    const start = keptTurnsStart(state.messages, keepTokens, tokensOfMessage);
    if (start === null) return tooLong(before, "there are no earlier turns left to summarise");
    const instructions = summaryInstructions(focus);
    const input = fitForSummary(state.messages.slice(0, start), request, instructions);
    if (input === null) return tooLong(before, "even a summary request would not fit");
    const started = performance.now();
    await settings.beforeSummary?.(trigger, focus, request.signal);
    let reply: ModelReply;
    try {
      reply = yield* summaryReply(request, [...input, { role: "user", content: instructions }]);
    } catch (error) {
      if (request.signal.aborted)
        return { reason: "interrupted", detail: "Interrupted by the user." };
      return tooLong(before, `the summary request failed (${(error as Error).message})`);
    }
    const summary = textOf(reply.message).trim();
    if (summary === "") return tooLong(before, "the model wrote an empty summary");
    const messages = historyAfterSummary(
      firstPromptOf(state.messages),
      summary,
      state.messages.slice(start),
      settings.restate?.() ?? null,
    );
    // @step compaction.summary: The older turns give way to the model's summary of them.
    state.messages = messages;
    state.lastRequestSize = null;
    const event: CompactionEvent = {
      type: "compaction",
      kind: "summary",
      trigger,
      tokensBefore: before,
      tokensAfter: size(request, messages),
      contextWindow,
      instructions,
      summarizedCount: input.length,
      summary,
      messages,
      usage: reply.usage,
      durationMs: performance.now() - started,
    };
    yield event;
    return null;
  }

  /** The part to summarise, made to fit: as it is, with its results cleared, or its latest turns. */
  function fitForSummary(
    older: Message[],
    request: RequestText,
    instructions: string,
  ): Message[] | null {
    const room = contextWindow - reserve() - tokensOfText(instructions);
    if (size(request, older) <= room) return older;
    const cleared = clearOldResults(older, {
      keepTokens: 0,
      tokensOf: tokensOfText,
      directory: null,
    });
    if (size(request, cleared.messages) <= room) return cleared.messages;
    const first = cleared.messages.slice(0, 1);
    const start = keptTurnsStart(cleared.messages, room - size(request, first), tokensOfMessage);
    if (start === null) return null;
    const shorter = [...first, ...cleared.messages.slice(start)];
    return size(request, shorter) <= room ? shorter : null;
  }

  function tooLong(tokens: number, why: string): LimitHit {
    return {
      reason: "context_too_long",
      detail: `The conversation (about ${count(tokens)} tokens) does not fit the model's context window of ${count(contextWindow)} tokens and cannot be compacted further: ${why}. Start a new session, or use a model with a larger window (--context-window if agentloop has it wrong).`,
    };
  }

  function oneMessageTooLong(tokens: number): LimitHit {
    return {
      reason: "context_too_long",
      detail: `One message alone (about ${count(tokens)} tokens) is larger than the model's context window of ${count(contextWindow)} tokens, so no compaction can make the conversation fit. Start a new session with a shorter prompt, or use a model with a larger window (--context-window if agentloop has it wrong).`,
    };
  }

  /**
   * Clears, then summarises if that was not enough. `force` (after the API refused the request)
   * clears all but the unseen results and insists on a smaller request than the refused one.
   */
  async function* compact(
    state: LoopState,
    request: CompactionRequest,
    trigger: CompactionTrigger,
    force: boolean,
  ): AsyncGenerator<LoopEvent, LimitHit | null> {
    const keep = force ? 0 : KEEP_AFTER_CLEARING * clearAt();
    const cleared = yield* clear(state, request, trigger, keep);
    const smaller = cleared || !force;
    if (smaller && size(request, state.messages) <= summarizeAt()) return null;
    const failed = yield* summarize(state, request, trigger);
    if (failed === null || failed.reason === "interrupted") return failed;
    // No summary, but a request that still fits the window is worth sending.
    const fits = size(request, state.messages) <= contextWindow - reserve();
    return smaller && fits ? null : failed;
  }

  return {
    fill(state, request) {
      estimator.calibrate(state, request);
      return { tokens: size(request, state.messages), contextWindow };
    },

    async *beforeRequest(state, request) {
      estimator.calibrate(state, request);
      if (!settings.auto || size(request, state.messages) <= clearAt()) return null;
      return yield* compact(state, request, "auto", false);
    },

    async *retryTooLong(state, error, request) {
      if (!(error instanceof ProviderError) || error.kind !== "context_too_long") return null;
      // The same request is never sent again, and a compacted one only once.
      if (state.transitionReason === "compact_retry") return refusedAfterCompacting(error);
      const sent = size(request, state.messages);
      // The window the API named; without one, a little less than what it just refused.
      contextWindow = error.contextWindow ?? Math.min(contextWindow, Math.floor(sent * 0.9));
      const stopped = yield* compact(state, request, "too_long", true);
      if (stopped) return stopped;
      state.transitionReason = "compact_retry";
      return { continue: true };
    },

    summarizeNow: (state, request, focus) => summarize(state, request, "manual", focus),
  };
}

function refusedAfterCompacting(error: ProviderError): LimitHit {
  return {
    reason: "context_too_long",
    detail: `${error.message.replace(/\.$/, "")}, even after compacting it: start a new session, or use a model with a larger window (--context-window if agentloop has it wrong).`,
  };
}

/** Runs the summary request, passing on retries but not its text (it is not the answer). */
async function* summaryReply(request: CompactionRequest, messages: Message[]) {
  const stream = request.provider.stream({
    system: request.system,
    messages,
    tools: request.tools,
    signal: request.signal,
  });
  while (true) {
    const step = await stream.next();
    if (step.done) return step.value;
    if (step.value.type === "retry") yield step.value;
  }
}

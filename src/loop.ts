// The agent loop (s01): send the conversation and the tools to the model, run every tool it
// asks for, append each result with its tool_use_id, and repeat until it stops asking.
//
// Everything else (streaming and retries, permissions, sandboxing, persistence, compaction)
// lives in other modules and reaches this file through small seams: the Provider, the Toolbox,
// limits, reminders, notices, compaction and the Stop hooks.

import type { Compaction, CompactionRequest } from "./compaction/compaction.js";
import type { LoopEvent, LoopStop } from "./core/events.js";
import { type Limit, repeatedCallLimit, warnAboutRepeats } from "./core/limits.js";
import type { LoopState, TurnEnd } from "./core/loop-state.js";
import {
  inputTokensOf,
  type ToolResultBlock,
  type ToolUseBlock,
  textOf,
  toolUses,
  type UserMessage,
} from "./core/messages.js";
import { type NoticeSource, withNotices } from "./core/notices.js";
import type { StopCheck } from "./core/part.js";
import { addReminders, type Reminder } from "./core/reminders.js";
import { afterTextReply } from "./core/text-reply.js";
import type { Provider } from "./providers/provider.js";
import { interruptedResult, type Toolbox, truncatedCallResult } from "./tools/toolbox.js";

export { createLoopState, type LoopState } from "./core/loop-state.js";

export interface LoopOptions {
  provider: Provider;
  toolbox: Toolbox;
  system: string;
  maxTurns: number;
  /** Aborting it interrupts the turn: the request stops, running tools are killed. */
  signal?: AbortSignal;
  /** Checked before every request (cost budget, repeated calls); the first hit stops the loop. */
  limits?: readonly Limit[];
  /** Keeps the history inside the context window (src/compaction/); without it, none is made. */
  compaction?: Compaction;
  /** Notes for the model added to a turn's tool results (the todo list's reminder). */
  reminders?: readonly Reminder[];
  /** What ended beside the loop (background tasks), told to the model after a turn's results. */
  notices?: NoticeSource;
  /** Asked when the answer is done, before the loop stops (a part's, such as the Stop hooks). */
  beforeStop?: StopCheck;
}

export const defaultLimits: Limit[] = [repeatedCallLimit];
const CONTINUE_PROMPT =
  "Your reply was cut off by the output token limit. Continue exactly where it stopped.";

/** Runs turns until the model stops asking for tools or something stops the loop. */
export async function* agentLoop(
  state: LoopState,
  options: LoopOptions,
): AsyncGenerator<LoopEvent, LoopStop> {
  let answer = "";
  let turnsThisRun = 0;
  while (true) {
    if (turnsThisRun === options.maxTurns) {
      const detail = `Stopped after ${options.maxTurns} turns (--max-turns).`;
      return yield* stop(state, { reason: "max_turns", detail }, answer);
    }
    const limitHit = (options.limits ?? defaultLimits).map((limit) => limit(state)).find(Boolean);
    if (limitHit) {
      const { reason, detail } = limitHit;
      return yield* stop(state, { reason, detail }, limitHit.answer ?? answer);
    }
    // Compaction (s06): clear old tool results, or summarise, when the history nears the window.
    const { compaction } = options;
    const overflow = compaction
      ? yield* compaction.beforeRequest(state, requestParts(options))
      : null;
    if (overflow) return yield* stop(state, overflow, answer);
    turnsThisRun += 1;
    yield { type: "turn_start", turn: state.turnCount };
    const continuingAnswer = state.transitionReason === "max_tokens_recovery";
    const replyIndex = state.messages.length;
    let end: TurnEnd;
    try {
      end = yield* runOneTurn(state, options);
    } catch (error) {
      // The API said "too long": compact harder and send a smaller request, once.
      const parts = requestParts(options);
      const retried = compaction ? yield* compaction.retryTooLong(state, error, parts) : null;
      end = retried ?? failure(error, options.signal);
    }
    const reply = state.messages[replyIndex];
    if (reply?.role === "assistant") answer = (continuingAnswer ? answer : "") + textOf(reply);
    // The step before stopping: a part (the Stop hooks, s04) may send the model back to work.
    if (!("continue" in end)) end = yield* beforeStopping(state, end, answer, options);
    if (!("continue" in end)) return yield* stop(state, end, answer);
    yield { type: "turn_end", turn: state.turnCount, transitionReason: state.transitionReason };
    state.turnCount += 1;
  }
}

/** One turn: ask the model, record its reply, run the tools it asked for, record the results. */
export async function* runOneTurn(
  state: LoopState,
  options: LoopOptions,
): AsyncGenerator<LoopEvent, TurnEnd> {
  const signal = options.signal ?? new AbortController().signal;
  const started = performance.now();
  // @step loop.send: messages[] and the tool definitions go to the model, which streams its reply.
  const reply = yield* options.provider.stream({
    system: options.system,
    messages: state.messages,
    tools: options.toolbox.definitions,
    signal,
  });
  state.lastRequestSize = {
    inputTokens: inputTokensOf(reply.usage),
    messageCount: state.messages.length,
  };
  // @step loop.reply: The model's reply is appended to messages[] as it came, tool calls and all.
  state.messages.push(reply.message);
  yield {
    type: "assistant_message",
    turn: state.turnCount,
    message: reply.message,
    stopReason: reply.stopReason,
    usage: reply.usage,
    durationMs: performance.now() - started,
  };

  // Some providers report "end_turn" beside tool calls: the blocks decide, not stop_reason.
  const calls = toolUses(reply.message);
  if (calls.length === 0) {
    const end = afterTextReply(state, reply);
    if ("continue" in end && state.transitionReason === "max_tokens_recovery") {
      const message: UserMessage = { role: "user", content: CONTINUE_PROMPT };
      // @step loop.continue: A reply cut off at max_tokens goes on: the model is asked to continue.
      state.messages.push(message);
      yield { type: "continuation", turn: state.turnCount, message };
    }
    return end;
  }

  const lastCallCutOff = reply.stopReason === "max_tokens";
  const results = yield* executeToolCalls(calls, lastCallCutOff, options.toolbox, signal);
  warnAboutRepeats(state.messages, results);
  addReminders(state.messages, results, options.reminders ?? []);
  const notices = options.notices?.() ?? [];
  const message: UserMessage = { role: "user", content: withNotices(results, notices) };
  // @step loop.results: The results go back in one user message, each with its tool_use_id.
  state.messages.push(message);
  yield { type: "tool_results", turn: state.turnCount, message };
  for (const notice of notices) yield notice.event;
  if (signal.aborted) return { reason: "interrupted", detail: "Interrupted by the user." };
  state.transitionReason = "tool_result";
  state.maxTokensRecoveries = 0;
  return { continue: true };
}

/**
 * Runs every tool call and returns one result per call, in the order issued. Consecutive
 * read-only calls run at the same time; any other call runs alone.
 */
export async function* executeToolCalls(
  calls: ToolUseBlock[],
  lastCallCutOff: boolean,
  toolbox: Toolbox,
  signal: AbortSignal,
): AsyncGenerator<LoopEvent, ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  for (const batch of toolbox.batches(calls)) {
    for (const call of batch) yield { type: "tool_start", call };
    const started = performance.now();
    const batchResults = await Promise.all(
      batch.map((call) => {
        if (lastCallCutOff && call === calls.at(-1)) return truncatedCallResult(call);
        if (signal.aborted) return interruptedResult(call);
        // @step loop.tool: Each tool call the model asked for runs, through the permission check.
        return toolbox.run(call, signal);
      }),
    );
    const durationMs = performance.now() - started;
    for (const [index, call] of batch.entries()) {
      const result = batchResults[index] as ToolResultBlock;
      results.push(result);
      yield { type: "tool_end", call, result, durationMs };
    }
  }
  return results;
}

/** A finished answer, shown to `beforeStop`: the loop stops, or goes on with its message. */
async function* beforeStopping(
  state: LoopState,
  end: Omit<LoopStop, "type" | "finalText">,
  answer: string,
  options: LoopOptions,
): AsyncGenerator<LoopEvent, TurnEnd> {
  if (end.reason !== "end_turn" || !options.beforeStop) return end;
  const signal = options.signal ?? new AbortController().signal;
  const said = await options.beforeStop(answer, signal);
  if (signal.aborted) return { reason: "interrupted", detail: "Interrupted by the user." };
  if (said === null) return end;
  if ("detail" in said) return { ...end, detail: said.detail, reason: said.reason ?? end.reason };
  const message: UserMessage = { role: "user", content: said.goOn };
  // @step loop.stop_check: A part (a Stop hook, the goal judge) sends the model back to work.
  state.messages.push(message);
  yield { type: "continuation", turn: state.turnCount, message };
  state.transitionReason = "stop_hook";
  return { continue: true };
}

function requestParts(options: LoopOptions): CompactionRequest {
  return {
    provider: options.provider,
    system: options.system,
    tools: options.toolbox.definitions,
    signal: options.signal ?? new AbortController().signal,
  };
}

function failure(error: unknown, signal: AbortSignal | undefined): TurnEnd {
  if (signal?.aborted) return { reason: "interrupted", detail: "Interrupted by the user." };
  const cause = error instanceof Error ? error : new Error(String(error));
  return { reason: "error", detail: cause.message, error: cause };
}

async function* stop(
  state: LoopState,
  end: Omit<LoopStop, "type" | "finalText">,
  finalText: string,
): AsyncGenerator<LoopEvent, LoopStop> {
  state.transitionReason = null;
  // @step loop.stop: The loop stops and says why: the answer is done, or a limit ended it.
  const event: LoopStop = { type: "stop", ...end, finalText };
  yield event;
  return event;
}

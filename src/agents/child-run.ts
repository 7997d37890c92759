// One subagent run: `agentLoop` with a fresh LoopState whose only message is the prompt. Every
// event goes to the child's own transcript and up to the parent; at its turn limit the child
// is asked once more, with tool_choice "none", for its best answer, and still reports max_turns.

import type { LoopEvent, LoopStop } from "../core/events.js";
import type { Limit } from "../core/limits.js";
import { addUsage, emptyUsage, type Usage, type UserMessage } from "../core/messages.js";
import { agentLoop, createLoopState, type LoopOptions } from "../loop.js";
import type { Provider } from "../providers/provider.js";
import { costOf } from "../session/cost.js";
import type { SessionWriter } from "../session/session-file.js";
import { errorResult, type Toolbox } from "../tools/toolbox.js";
import { type ChildStatus, statusOf } from "./report.js";

export const ANSWER_NOW =
  "You have used all the turns you were given. Call no more tools: reply now with your best answer from what you have found so far, and say what is left undone.";

export interface ChildRunOptions {
  provider: Provider;
  toolbox: Toolbox;
  system: string;
  prompt: string;
  maxTurns: number;
  signal: AbortSignal;
  limits: readonly Limit[];
  /** The SubagentStop hooks: asked when the child's answer is done, as Stop is for the session. */
  beforeStop?: LoopOptions["beforeStop"];
  writer: SessionWriter;
  /** Each event of the child's loop, as it happens; the child goes on once it resolves. */
  onEvent(event: LoopEvent): Promise<void>;
}

export interface ChildOutcome {
  finalText: string;
  status: ChildStatus;
  toolCalls: number;
  usage: Usage;
  /** Null when the model's price is not known. */
  costUsd: number | null;
}

export async function runChild(options: ChildRunOptions): Promise<ChildOutcome> {
  const first: UserMessage = { role: "user", content: options.prompt };
  const state = createLoopState([first]);
  options.writer.recordMessage(first);
  const outcome: ChildOutcome = {
    finalText: "",
    status: "completed",
    toolCalls: 0,
    usage: emptyUsage(),
    costUsd: 0,
  };
  // A session that stopped reading must not keep an interrupted child waiting for it.
  const aborted = new Promise<void>((resolve) =>
    options.signal.addEventListener("abort", () => resolve(), { once: true }),
  );
  const run = async (loop: AsyncGenerator<LoopEvent, LoopStop>) => {
    while (true) {
      const step = await loop.next();
      if (step.done) return step.value;
      const event = step.value;
      options.writer.recordEvent(event);
      if (event.type === "tool_start") outcome.toolCalls += 1;
      if (event.type === "assistant_message") {
        outcome.usage = addUsage(outcome.usage, event.usage);
        const dollars = costOf(options.provider.model, event.usage);
        outcome.costUsd =
          outcome.costUsd === null || dollars === null ? null : outcome.costUsd + dollars;
      }
      await Promise.race([options.onEvent(event), aborted]);
    }
  };
  const loopOptions = {
    provider: options.provider,
    toolbox: options.toolbox,
    system: options.system,
    signal: options.signal,
    limits: options.limits,
  };
  // @step tool.agent: The subagent runs a loop of its own, its messages[] only its prompt.
  let stop = await run(
    agentLoop(state, {
      ...loopOptions,
      maxTurns: options.maxTurns,
      beforeStop: options.beforeStop,
    }),
  );
  outcome.status = statusOf(stop);
  if (stop.reason === "max_turns" && !options.signal.aborted) {
    const ask: UserMessage = { role: "user", content: ANSWER_NOW };
    state.messages.push(ask);
    options.writer.recordMessage(ask);
    const answer = await run(
      agentLoop(state, {
        ...loopOptions,
        provider: answeringOnly(options.provider),
        toolbox: runningNothing(options.toolbox),
        maxTurns: 1,
      }),
    );
    // An error or an interrupt in the extra turn is what the person needs to know about.
    if (answer.reason !== "end_turn" && answer.reason !== "max_turns") {
      outcome.status = statusOf(answer);
    }
    stop = answer;
  }
  outcome.finalText = stop.finalText;
  return outcome;
}

/** The provider asked for text only: the tools stay defined, as the API needs for a history with tool calls. */
function answeringOnly(provider: Provider): Provider {
  return {
    ...provider,
    stream: (request) => provider.stream({ ...request, toolChoice: "none" }),
  };
}

/** The same definitions, but a call (which tool_choice "none" should prevent) is not run. */
function runningNothing(toolbox: Toolbox): Toolbox {
  return {
    get definitions() {
      return toolbox.definitions;
    },
    run: async (call) => errorResult(call, "The turn limit was reached; this call was not run."),
    batches: (calls) => toolbox.batches(calls),
    dispose: async () => undefined,
  };
}

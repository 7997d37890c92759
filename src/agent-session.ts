// A session ties the loop to its surroundings: each prompt is added to the history, every
// event is written to the session file before the next one is produced, and usage is summed.
// The REPL, one-shot mode and library users all drive the loop through this.

import type { Compaction } from "./compaction/compaction.js";
import { type LoopEvent, type LoopStop, requestUsage } from "./events.js";
import { type Limit, maxCostLimit, repeatedCallLimit } from "./limits.js";
import { agentLoop, createLoopState, type LoopState } from "./loop.js";
import { addUsage, emptyUsage, type Message, type Usage, type UserMessage } from "./messages.js";
import type { Provider } from "./providers/provider.js";
import type { SessionWriter } from "./session.js";
import type { Toolbox } from "./tools/toolbox.js";

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
}

export interface AgentSession {
  readonly state: LoopState;
  readonly id: string;
  readonly model: string;
  /** Tokens used by every request of this session so far. */
  usage(): Usage;
  runPrompt(prompt: string, signal: AbortSignal): AsyncGenerator<LoopEvent, LoopStop>;
  /** Summarises the history now (the REPL's /compact), with an optional focus for the summary. */
  compact(focus: string | undefined, signal: AbortSignal): AsyncGenerator<LoopEvent, string>;
  /** How full the context window is for the next request; null without compaction. */
  contextFill(): { tokens: number; contextWindow: number } | null;
  close(): Promise<void>;
}

export function createAgentSession(options: AgentSessionOptions): AgentSession {
  const state = createLoopState(options.messages ?? []);
  let usage = emptyUsage();
  const limits: Limit[] = [repeatedCallLimit];
  if (options.maxCostUsd !== undefined) {
    limits.push(maxCostLimit(options.maxCostUsd, options.provider.model, () => usage));
  }

  const parts = (signal: AbortSignal) => ({
    provider: options.provider,
    system: options.system,
    tools: options.toolbox.definitions,
    signal,
  });
  /** Every event is on disk, and its tokens counted, before the next one is produced. */
  async function* recorded<Result>(events: AsyncGenerator<LoopEvent, Result>) {
    while (true) {
      const step = await events.next();
      if (step.done) return step.value;
      const event = step.value;
      options.writer.recordEvent(event);
      const used = requestUsage(event);
      if (used) usage = addUsage(usage, used);
      yield event;
    }
  }

  return {
    state,
    id: options.writer.id,
    model: options.provider.model,
    usage: () => usage,
    async *runPrompt(prompt, signal) {
      const message: UserMessage = { role: "user", content: prompt };
      state.messages.push(message);
      options.writer.recordMessage(message);
      return yield* recorded(
        agentLoop(state, {
          provider: options.provider,
          toolbox: options.toolbox,
          system: options.system,
          maxTurns: options.maxTurns,
          signal,
          limits,
          compaction: options.compaction,
        }),
      );
    },
    async *compact(focus, signal) {
      if (!options.compaction) return "Compaction is not available in this session.";
      if (state.messages.length < 3) return "There is nothing to compact yet.";
      const failed = yield* recorded(options.compaction.summarizeNow(state, parts(signal), focus));
      return failed ? failed.detail : "Compacted.";
    },
    contextFill() {
      return options.compaction?.fill(state, parts(new AbortController().signal)) ?? null;
    },
    async close() {
      await options.toolbox.dispose();
      await options.provider.dispose?.();
      options.writer.close();
    },
  };
}

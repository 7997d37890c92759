// What the parts ask of the front end between prompts: the prompts they queue for when the
// session is idle (a scheduled job, a teammate's message) and the events they announce then (a
// background task that ended). Both wait here until the front end that serves them takes them.

import type { LoopEvent } from "../core/events.js";
import type { QueuedOutcome, QueuedPrompt, QueuedPromptRuns } from "../core/part.js";

export interface QueuedEntry {
  prompt: QueuedPrompt;
  /** Tells the part what became of it; the first call counts. */
  settle(outcome: QueuedOutcome): void;
}

export interface PromptQueue {
  /** A front end serves the queue from now on: `wake` hears each prompt queued, each event. */
  serve(runs: QueuedPromptRuns, wake: () => void): void;
  runs(): QueuedPromptRuns;
  queue(prompt: QueuedPrompt): Promise<QueuedOutcome>;
  /** The oldest queued prompt, removed. */
  take(): QueuedEntry | undefined;
  announce(events: LoopEvent[]): void;
  /** The announced events, oldest first, removed. */
  takeAnnounced(): LoopEvent[];
  /** The session closes: every prompt still waiting was not run. */
  dropAll(): void;
}

export function createPromptQueue(): PromptQueue {
  let runs: QueuedPromptRuns = "never";
  let wake = () => {};
  const waiting: QueuedEntry[] = [];
  let announced: LoopEvent[] = [];
  return {
    serve(nextRuns, nextWake) {
      runs = nextRuns;
      wake = nextWake;
    },
    runs: () => runs,
    queue(prompt) {
      // Said at once: a part that no front end serves learns it now, not never.
      if (runs === "never") return Promise.resolve({ ran: false });
      return new Promise((resolve) => {
        let settled = false;
        const settle = (outcome: QueuedOutcome) => {
          if (settled) return;
          settled = true;
          resolve(outcome);
        };
        waiting.push({ prompt, settle });
        wake();
      });
    },
    take: () => waiting.shift(),
    announce(events) {
      if (events.length === 0) return;
      announced.push(...events);
      wake();
    },
    takeAnnounced() {
      const taken = announced;
      announced = [];
      return taken;
    },
    dropAll() {
      for (const entry of waiting.splice(0)) entry.settle({ ran: false });
    },
  };
}

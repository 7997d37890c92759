// How a subagent's events reach the parent session while the `agent` call is still running.
// The loop is waiting for the tool's result then, so the child cannot yield into the parent's
// stream: it pushes each event here, and the session, which waits on both, passes them on
// (into its file, its usage and cost, and every consumer) before the call's own tool_end.
// A child goes on only once its event has been taken, as the loop itself waits for its
// consumer: its tool call is on the screen before any question about it.

import type { SubagentEvent } from "../core/events.js";
import type { Limit } from "../core/limits.js";

/** An event waiting, and what the session calls once every consumer has had it. */
export interface Pending {
  event: SubagentEvent;
  taken(): void;
}

export interface SubagentChannel {
  /** Resolves once the session has passed the event on. */
  emit(event: SubagentEvent): Promise<void>;
  /** The events waiting, oldest first; they are removed. */
  drain(): Pending[];
  /**
   * Resolves once an event is waiting (at once when one already is), or once `until` is
   * aborted: a wait the session gives up (its step came first) leaves nothing behind.
   */
  waiting(until: AbortSignal): Promise<void>;
  /**
   * Set by the session the children report to: the limits every child shares with it (its
   * cost budget), and where a child's transcript is written (<session dir>/agents/).
   */
  parent: { limits: readonly Limit[]; transcriptDirectory: () => string } | null;
}

export function createSubagentChannel(): SubagentChannel {
  let queue: Pending[] = [];
  const waiters = new Set<() => void>();
  return {
    emit(event) {
      const taken = new Promise<void>((resolve) => queue.push({ event, taken: resolve }));
      for (const wake of [...waiters]) wake();
      return taken;
    },
    drain() {
      const events = queue;
      queue = [];
      return events;
    },
    waiting(until) {
      if (queue.length > 0 || until.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          until.removeEventListener("abort", wake);
          resolve();
        };
        waiters.add(wake);
        until.addEventListener("abort", wake, { once: true });
      });
    },
    parent: null,
  };
}

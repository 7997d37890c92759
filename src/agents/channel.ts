// How a subagent's events reach the parent session while the `agent` call is still running.
// The loop is waiting for the tool's result then, so the child cannot yield into the parent's
// stream: it pushes each event here, and the session, which waits on both, passes them on
// (into its file, its usage and cost, and every consumer) before the call's own tool_end.

import type { SubagentEvent } from "../core/events.js";
import type { Limit } from "../core/limits.js";

export interface SubagentChannel {
  emit(event: SubagentEvent): void;
  /** The events waiting, oldest first; they are removed. */
  drain(): SubagentEvent[];
  /** Resolves once an event is waiting (at once when one already is). */
  waiting(): Promise<void>;
  /**
   * Set by the session the children report to: the limits every child shares with it (its
   * cost budget), and where a child's transcript is written (<session dir>/agents/).
   */
  parent: { limits: Limit[]; transcriptDirectory: () => string } | null;
}

export function createSubagentChannel(): SubagentChannel {
  let queue: SubagentEvent[] = [];
  let wake: (() => void) | null = null;
  let signalled: Promise<void> | null = null;
  return {
    emit(event) {
      queue.push(event);
      wake?.();
      wake = null;
      signalled = null;
    },
    drain() {
      const events = queue;
      queue = [];
      return events;
    },
    waiting() {
      if (queue.length > 0) return Promise.resolve();
      signalled ??= new Promise((resolve) => {
        wake = resolve;
      });
      return signalled;
    },
    parent: null,
  };
}

// The events the parts report while a step of the loop is still running (a subagent's, as it
// works), gathered from every part that has them into one source the session waits on.

import type { SessionPart, SideEvents } from "../core/part.js";

export function sideEventsOf(parts: readonly SessionPart[]): SideEvents | undefined {
  const sources = parts.flatMap((part) => (part.sideEvents ? [part.sideEvents] : []));
  if (sources.length <= 1) return sources[0];
  return {
    async waiting(until) {
      // The first source to have an event ends the wait; the others' waits end with it.
      const first = new AbortController();
      const stop = () => first.abort();
      until.addEventListener("abort", stop, { once: true });
      try {
        await Promise.race(sources.map((source) => source.waiting(first.signal)));
      } finally {
        first.abort();
        until.removeEventListener("abort", stop);
      }
    },
    drain: () => sources.flatMap((source) => source.drain()),
  };
}

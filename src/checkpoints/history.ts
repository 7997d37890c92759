// The conversation a session goes on with once rewinds are counted: each rewind of the
// conversation takes the history back to where its checkpoint was taken, and what follows the
// rewind is added to that. The file keeps every message; only the history sent changes.

import type { Message } from "../core/messages.js";
import { contextFromEntries } from "../session/replay.js";
import type { SessionEntry } from "../session/session-file.js";
import { PART_NAME } from "./records.js";

/** The history after the session's rewinds, or null when the conversation was never rewound. */
export function historyAfterRewinds(entries: readonly SessionEntry[]): Message[] | null {
  let kept: SessionEntry[] = [];
  let rewound = false;
  const marks = new Map<number, SessionEntry[]>();
  for (const entry of entries) {
    if (entry.type === "part" && entry.part === PART_NAME) {
      const data = entry.data as { number?: number; to?: number; conversation?: boolean };
      if (entry.name === "checkpoint" && data.number !== undefined) {
        marks.set(data.number, [...kept]);
      } else if (entry.name === "rewind" && data.conversation && data.to !== undefined) {
        kept = [...(marks.get(data.to) ?? kept)];
        rewound = true;
        continue;
      }
    }
    kept.push(entry);
  }
  return rewound ? contextFromEntries(kept) : null;
}

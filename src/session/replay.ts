// The history a session goes on with, rebuilt from its file: every message in order, with each
// compaction redone where it was recorded. The file itself keeps every original message.

import { applyStubs } from "../compaction/clear-results.js";
import type { Message } from "../core/messages.js";
import type { SessionEntry } from "./session-file.js";

export function contextFromEntries(entries: readonly SessionEntry[]): Message[] {
  let context: Message[] = [];
  for (const entry of entries) {
    if (entry.type === "message") context.push(entry.message);
    else if (entry.type === "compaction") {
      context = entry.kind === "clear" ? applyStubs(context, entry.cleared) : [...entry.messages];
    }
  }
  return context;
}

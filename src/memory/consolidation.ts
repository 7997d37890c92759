// When the index passes its budget, one request merges duplicates and drops what is stale. The
// answer names the entries to keep as they are and writes the merged ones; a pinned entry is
// kept whatever the answer says, and an answer that keeps nothing readable changes nothing.

import { describeEntry, type MemoryEntry, newEntryId, oneLine, topicName } from "./entry.js";
import { INDEX_BUDGET } from "./prompt-section.js";

/** The first words of the request: the fake model in the tests answers it by them. */
export const CONSOLIDATION_MARK = "[agentloop memory consolidation]";

export const CONSOLIDATION_SYSTEM =
  "You keep a project's memory short and true. You answer only in the format asked for.";

export function consolidationRequest(entries: readonly MemoryEntry[]): string {
  const lines = entries.map((entry) => `${entry.topic} ${describeEntry(entry)}`).join("\n");
  return `${CONSOLIDATION_MARK} This project's memory has grown past its budget (${INDEX_BUDGET.lines} lines or ${INDEX_BUDGET.bytes} bytes of index). Make it shorter: merge entries that say the same thing, drop entries that are stale or contradicted by a later one, keep each entry one sentence. Entries marked pinned are kept as they are. Answer with one line per entry to keep, exactly one of:
KEEP <id>
NEW <topic>: <a merged or rewritten entry, one sentence>

The entries, each as <topic> [<id>] <text> (<when>, <session>):
${lines}`;
}

export interface Consolidated {
  entries: MemoryEntry[];
  kept: number;
  merged: number;
  dropped: number;
}

/** The entries after the answer, or null when it kept nothing agentloop could read. */
export function applyConsolidation(
  entries: readonly MemoryEntry[],
  answer: string,
  made: { session: string; at: string },
): Consolidated | null {
  const keep = new Set<string>();
  const written: MemoryEntry[] = [];
  for (const line of answer.split("\n")) {
    const kept = /^\s*KEEP\s+\[?([a-z0-9]+)\]?\s*$/i.exec(line);
    if (kept) keep.add(kept[1] as string);
    const merged = /^\s*NEW\s+([^:]+):\s*(.+)$/i.exec(line);
    const topic = merged && topicName(merged[1] as string);
    const text = merged && oneLine(merged[2] as string);
    if (topic && text) {
      written.push({
        id: newEntryId([...entries, ...written]),
        topic,
        text,
        made: made.at,
        session: made.session,
        pinned: false,
      });
    }
  }
  const survivors = entries.filter((entry) => entry.pinned || keep.has(entry.id));
  if (keep.size === 0 && written.length === 0) return null;
  return {
    entries: [...survivors, ...written],
    kept: survivors.length,
    merged: written.length,
    dropped: entries.length - survivors.length,
  };
}

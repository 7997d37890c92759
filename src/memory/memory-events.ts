// Every read and write of the memory is an event of the memory part: the terminal and the
// viewer show its line, stream-json prints it, and the session file keeps it.

import type { PartEvent } from "../core/events.js";
import type { MemoryEntry } from "./entry.js";

export type MemoryWrite = "remembered" | "updated" | "forgotten" | "proposed";

const WORDS: Record<MemoryWrite, string> = {
  remembered: "Remembered",
  updated: "Memory updated",
  forgotten: "Forgotten",
  proposed: "Proposed for memory (waits for /memory approve)",
};

/** `by`: the memory tool, the extraction at a session's end or before a compaction. */
export function writeEvent(kind: MemoryWrite, entry: MemoryEntry, by: string): PartEvent {
  return {
    type: "part",
    part: "memory",
    name: kind,
    line: `${WORDS[kind]}: ${entry.text} [${entry.id}, ${entry.topic}]`,
    data: { entry: { ...entry }, by },
  };
}

export function memoryEvent(name: string, line: string, data: Record<string, unknown>): PartEvent {
  return { type: "part", part: "memory", name, line, data };
}

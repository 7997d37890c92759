// What a session's parts contribute, put together in list order: the loop's seams (limits,
// reminders, notices, the step before stopping) and the session's steps around a prompt.

import type { LoopEvent } from "../core/events.js";
import type { Limit } from "../core/limits.js";
import type { Notice, NoticeSource } from "../core/notices.js";
import type { PromptNote, SessionPart, StopCheck } from "../core/part.js";
import type { Reminder } from "../core/reminders.js";

export function limitsOf(parts: readonly SessionPart[]): Limit[] {
  return parts.flatMap((part) => part.limits ?? []);
}

export function remindersOf(parts: readonly SessionPart[]): Reminder[] {
  return parts.flatMap((part) => part.reminders ?? []);
}

/** Every part's notices, or undefined when no part has any to give. */
export function noticesOf(parts: readonly SessionPart[]): NoticeSource | undefined {
  const sources = parts.flatMap((part) => (part.notices ? [part.notices] : []));
  if (sources.length === 0) return undefined;
  return (): Notice[] => sources.flatMap((source) => source());
}

/** One prompt's check before stopping: the first part that answers decides. */
export function stopCheckOf(parts: readonly SessionPart[]): StopCheck | undefined {
  const checks = parts.flatMap((part) => (part.stopCheck ? [part.stopCheck()] : []));
  if (checks.length === 0) return undefined;
  return async (answer, signal) => {
    for (const check of checks) {
      const said = await check(answer, signal);
      if (said !== null) return said;
    }
    return null;
  };
}

/** The first refusal of the prompt, asking the parts in order; null when all admit it. */
export async function refusalOf(
  parts: readonly SessionPart[],
  prompt: string,
  signal: AbortSignal,
): Promise<string | null> {
  for (const part of parts) {
    const refusal = (await part.screenPrompt?.(prompt, signal)) ?? null;
    if (refusal !== null) return refusal;
  }
  return null;
}

export function promptNotesOf(parts: readonly SessionPart[]): PromptNote[] {
  return parts.flatMap((part) => part.promptNotes?.() ?? []);
}

export function eventsBefore(parts: readonly SessionPart[]): LoopEvent[] {
  return parts.flatMap((part) => part.eventsBefore?.() ?? []);
}

export function eventsAfter(parts: readonly SessionPart[], event: LoopEvent): LoopEvent[] {
  return parts.flatMap((part) => part.eventsAfter?.(event) ?? []);
}

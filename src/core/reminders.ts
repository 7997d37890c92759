// Reminders are short notes to the model, added to the tool results of a turn, from the steps
// that keep state across turns (the todo list of src/planning/). The loop calls them after every
// turn's tools ran; each decides from the history whether it has something to say.

import { type Message, type ToolResultBlock, withTextAdded } from "./messages.js";

/** `messages` ends with the assistant reply whose results are about to be sent; null: nothing. */
export type Reminder = (messages: readonly Message[]) => string | null;

/** Appends each reminder's note to the last result, the part of the message the model reads last. */
export function addReminders(
  messages: readonly Message[],
  results: ToolResultBlock[],
  reminders: readonly Reminder[],
): void {
  const last = results.at(-1);
  if (!last) return;
  for (const remind of reminders) {
    const note = remind(messages);
    if (note) last.content = withTextAdded(last.content, `\n${note}`);
  }
}

// Notices are what work going on beside the loop has to tell the model (a background task
// that ended). Unlike a reminder, which the loop asks for each turn, a notice arrives on its
// own time: it goes, as a text block after the tool results, into the next request's last
// user message, once, and is announced by its own event.

import type { LoopEvent } from "./events.js";
import type { TextBlock, ToolResultBlock, UserBlock } from "./messages.js";

export interface Notice {
  /** What the model reads. */
  text: string;
  /** What the event stream (the terminal, the session file, stream-json) is told. */
  event: LoopEvent;
}

/** Hands over the notices not delivered yet; each is handed over once. */
export type NoticeSource = () => Notice[];

/** A user message's blocks: the tool results first, as the APIs require, then the notices. */
export function withNotices(results: ToolResultBlock[], notices: readonly Notice[]): UserBlock[] {
  return [...results, ...noticeBlocks(notices)];
}

export function noticeBlocks(notices: readonly Notice[]): TextBlock[] {
  return notices.map((notice) => ({ type: "text", text: notice.text }));
}

// What the viewer replays, computed once from a session file: the conversation as a person
// reads it, and one step per request sent to the model. Request k sent every message before
// the k-th assistant message; its step also shows the reply and the tool results it led to.

import type { LoopStopReason, TransitionReason } from "../events.js";
import type { Message, StopReason, Usage } from "../messages.js";
import type { SessionContents, SessionHeader, SessionProblem } from "../session.js";
import { isKnownBlock } from "./known-block.js";

export type ConversationItem =
  | { kind: "message"; index: number }
  | { kind: "stop"; reason: LoopStopReason; detail: string }
  | { kind: "repair"; description: string };

export interface Reply {
  /** Index of the assistant message in `messages`. */
  index: number;
  turn: number | null;
  stopReason: StopReason | null;
  usage: Usage | null;
  durationMs: number | null;
}

export interface Step {
  /** 1-based number of the request. */
  request: number;
  /** `messages.slice(0, sentCount)` is the array this request sent. */
  sentCount: number;
  /** `items.slice(0, shownCount)` is the conversation on screen at this step. */
  shownCount: number;
  /** Null when the session ends before the model answered this request. */
  reply: Reply | null;
  /** Why the loop went on to another turn after this one, if it did. */
  transitionReason: TransitionReason | null;
  /** Set when the loop stopped after this request. */
  stop: { reason: LoopStopReason; detail: string } | null;
}

export interface Timeline {
  header: SessionHeader | null;
  messages: Message[];
  items: ConversationItem[];
  steps: Step[];
  problems: SessionProblem[];
}

export function buildTimeline(session: SessionContents): Timeline {
  const messages: Message[] = [];
  const items: ConversationItem[] = [];
  const steps: Step[] = [];
  // The step that items belong to until something starts the next request's input.
  let open: Step | null = null;
  const belongToOpenStep = () => {
    if (open) open.shownCount = items.length;
  };

  for (const entry of session.entries) {
    switch (entry.type) {
      case "message": {
        const index = messages.length;
        messages.push(entry.message);
        items.push({ kind: "message", index });
        if (entry.message.role === "assistant") {
          open = {
            request: steps.length + 1,
            sentCount: index,
            shownCount: items.length,
            reply: {
              index,
              turn: entry.turn ?? null,
              stopReason: entry.stopReason ?? null,
              usage: entry.usage ?? null,
              durationMs: entry.durationMs ?? null,
            },
            transitionReason: null,
            stop: null,
          };
          steps.push(open);
        } else if (carriesToolResults(entry.message)) {
          belongToOpenStep();
        } else {
          // A prompt (or a loop-written nudge) is input to the next request.
          open = null;
        }
        break;
      }
      case "turn_end":
        if (open) open.transitionReason = entry.transitionReason;
        break;
      case "stop":
        items.push({ kind: "stop", reason: entry.reason, detail: entry.detail });
        if (open) open.stop = { reason: entry.reason, detail: entry.detail };
        belongToOpenStep();
        break;
      case "repair":
        // A repair changes what the next request sends, so it is shown with that request.
        items.push({ kind: "repair", description: entry.description });
        open = null;
        break;
    }
  }

  const lastShown = steps.at(-1)?.shownCount ?? 0;
  const trailing = items.slice(lastShown);
  if (trailing.some((item) => item.kind === "message")) {
    // Input was recorded but no reply: the session ended while this request was pending.
    const stop = trailing.findLast((item) => item.kind === "stop");
    steps.push({
      request: steps.length + 1,
      sentCount: messages.length,
      shownCount: items.length,
      reply: null,
      transitionReason: null,
      stop: stop ? { reason: stop.reason, detail: stop.detail } : null,
    });
  } else {
    const last = steps.at(-1);
    if (last) last.shownCount = items.length;
  }

  return { header: session.header, messages, items, steps, problems: session.problems };
}

function carriesToolResults(message: Message): boolean {
  return (
    typeof message.content !== "string" &&
    message.content.some((block) => isKnownBlock(block) && block.type === "tool_result")
  );
}

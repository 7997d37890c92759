// The histories the loop sent, replayed from a session file the way the loop built them. A
// context starts empty and each recorded message is appended to it; a "clear" compaction
// replaces the content of some tool results with stubs; a "summary" compaction replaces the
// whole context with the history it records, and messages recorded after it are appended to
// that one.
//
// A context is an array of indexes into `messages`, which holds every recorded message in file
// order and, where a compaction record is, the messages it made: a stubbed copy of each
// tool-results message it changed, the summary request's instructions and reply, and the
// messages of the summarised history that were not already in the context. A new context is
// made only at a compaction (a copy of the history at that point), for each summary request and
// at a rewind (back to a history a part event marked), and every request sends a prefix of one
// context, so a step needs only (context, count).

import { canonicalJson } from "../core/canonical-json.js";
import type { ClearedResult } from "../core/events.js";
import type { Message } from "../core/messages.js";
import { isKnownBlock } from "./known-block.js";

export class ContextReplay {
  readonly messages: Message[] = [];
  readonly contexts: number[][] = [[]];
  /** The context the loop holds now, which recorded messages are appended to. */
  private currentId = 0;
  /** Histories a part event named, as a context and how many of its messages (see mark). */
  private readonly marks = new Map<string, { context: number; length: number }>();

  get current(): number {
    return this.currentId;
  }

  /** How many messages the current context holds: what the next request would send. */
  get length(): number {
    return this.currentContext().length;
  }

  /** Appends a recorded message to the current context and returns its index in `messages`. */
  append(message: Message): number {
    const index = this.add(message);
    this.currentContext().push(index);
    return index;
  }

  /** Adds a message that belongs to no context (a summary request's reply). */
  add(message: Message): number {
    return this.messages.push(message) - 1;
  }

  /** Replaces, in the current context, the content of each listed tool result by its stub. */
  clear(cleared: ClearedResult[]): void {
    const stubs = new Map<string, string>();
    for (const result of cleared) {
      if (typeof result?.tool_use_id === "string" && typeof result.stub === "string") {
        stubs.set(result.tool_use_id, result.stub);
      }
    }
    const next = this.currentContext().slice();
    let changed = false;
    for (const [position, index] of next.entries()) {
      const message = this.messages[index] as Message;
      const stubbed = withStubs(message, stubs);
      if (stubbed === message) continue;
      next[position] = this.add(stubbed);
      changed = true;
    }
    if (changed) this.use(next);
  }

  /**
   * Makes the context of a summary request: the first `count` messages of the current context,
   * then the instructions as a user message. The session records the count and the
   * instructions, not a copy of the request, so this is the request rebuilt from them.
   * Returns the new context's id and the instructions' index.
   */
  summaryRequest(count: number, instructions: string): { context: number; instructions: number } {
    const sent = this.currentContext().slice(0, Math.max(0, count));
    const index = this.add({ role: "user", content: instructions });
    sent.push(index);
    this.contexts.push(sent);
    return { context: this.contexts.length - 1, instructions: index };
  }

  /**
   * Replaces the current context by `history`. A message equal to one already in the context
   * (the first prompt, the recent turns kept verbatim) keeps that message's index, so the page
   * can tell what is really new: usually only the summary.
   */
  replaceWith(history: Message[]): void {
    const known = new Map<string, number>();
    for (const index of this.currentContext()) {
      known.set(canonicalJson(this.messages[index]), index);
    }
    const next: number[] = [];
    for (const message of history) {
      if (typeof message !== "object" || message === null) continue;
      next.push(known.get(canonicalJson(message)) ?? this.add(message));
    }
    this.use(next);
  }

  /** Remembers the current context as it stands, under `name`. */
  mark(name: string): void {
    this.marks.set(name, { context: this.currentId, length: this.length });
  }

  /**
   * Makes the history marked `name` the current one again (a rewind of the conversation): what
   * was appended since is no longer sent. False when no such mark was recorded.
   */
  backTo(name: string): boolean {
    const marked = this.marks.get(name);
    if (!marked) return false;
    this.use((this.contexts[marked.context] as number[]).slice(0, marked.length));
    return true;
  }

  private use(context: number[]): void {
    this.contexts.push(context);
    this.currentId = this.contexts.length - 1;
  }

  private currentContext(): number[] {
    return this.contexts[this.currentId] as number[];
  }
}

/** The message with the listed results' content replaced, or the same object if none is. */
function withStubs(message: Message, stubs: Map<string, string>): Message {
  if (message.role !== "user" || typeof message.content === "string") return message;
  let changed = false;
  const content = message.content.map((block) => {
    if (!isKnownBlock(block) || block.type !== "tool_result") return block;
    const stub = stubs.get(block.tool_use_id);
    if (stub === undefined || block.content === stub) return block;
    changed = true;
    return { ...block, content: stub };
  });
  return changed ? { ...message, content } : message;
}

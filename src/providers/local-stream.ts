// The local model's reply as it streams: node-llama-cpp's response chunks, handed from its
// callback to the provider's generator as our stream events, in order. Thinking is shown as
// thinking, never as the answer. The newlines at either end of a run of text (after
// `</think>`, before a tool call) are the chat template's layout: they are neither streamed
// nor kept in the reply, and the history puts them back (local-history.ts).

import type { LlamaChatResponseChunk } from "node-llama-cpp";
import type { StreamEvent } from "./provider.js";

/** A run of the reply's text without the template's newlines around it. */
export function withoutLayoutNewlines(text: string): string {
  return text.replace(/^\n+|\n+$/g, "");
}

export class ReplyStream implements AsyncIterable<StreamEvent> {
  private readonly events: StreamEvent[] = [];
  private ended = false;
  private wake: (() => void) | null = null;
  /** Whether the current run of text has begun: until then, newlines are layout. */
  private textBegun = false;
  /** Newlines at the end of the text so far: streamed only when more text follows them. */
  private heldNewlines = "";

  push(chunk: LlamaChatResponseChunk): void {
    if (chunk.type === undefined) {
      this.pushText(chunk.text);
      return;
    }
    // A segment (thinking) ends the run of text before it, and a new run starts after it.
    this.textBegun = false;
    this.heldNewlines = "";
    if (chunk.segmentType === "thought" && chunk.text !== "") {
      this.emit({ type: "thinking_delta", text: chunk.text });
    }
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    while (true) {
      const next = this.events.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
  }

  private pushText(chunk: string): void {
    const text = this.textBegun ? chunk : chunk.replace(/^\n+/, "");
    if (text === "") return;
    this.textBegun = true;
    const body = text.replace(/\n+$/, "");
    if (body === "") {
      this.heldNewlines += text;
      return;
    }
    this.emit({ type: "text_delta", text: this.heldNewlines + body });
    this.heldNewlines = text.slice(body.length);
  }

  private emit(event: StreamEvent): void {
    this.events.push(event);
    this.wake?.();
  }
}

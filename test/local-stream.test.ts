// The local reply's stream: node-llama-cpp's chunks as stream events, without the template's
// newlines around a run of text.

import type { LlamaChatResponseChunk, Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { ReplyStream, withoutLayoutNewlines } from "../src/providers/local-stream.js";
import type { StreamEvent } from "../src/providers/provider.js";

const text = (chunk: string): LlamaChatResponseChunk => ({
  type: undefined,
  segmentType: undefined,
  text: chunk,
  tokens: [] as Token[],
});
const thought = (chunk: string): LlamaChatResponseChunk => ({
  type: "segment",
  segmentType: "thought",
  text: chunk,
  tokens: [] as Token[],
});

async function streamed(chunks: LlamaChatResponseChunk[]): Promise<StreamEvent[]> {
  const stream = new ReplyStream();
  for (const chunk of chunks) stream.push(chunk);
  stream.end();
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("the local reply's stream", () => {
  it("streams thinking as thinking and the answer as text", async () => {
    expect(await streamed([thought("Let me see."), text("\n\n"), text("It is 4.")])).toEqual([
      { type: "thinking_delta", text: "Let me see." },
      { type: "text_delta", text: "It is 4." },
    ]);
  });

  it("keeps newlines inside the text and drops those at either end of it", async () => {
    const events = await streamed([
      text("\nOne"),
      text("\n"),
      text("\n"),
      text("two\n"),
      text("\n"),
    ]);
    expect(events).toEqual([
      { type: "text_delta", text: "One" },
      { type: "text_delta", text: "\n\ntwo" },
    ]);
    const joined = events.map((event) => ("text" in event ? event.text : "")).join("");
    expect(joined).toBe(withoutLayoutNewlines("\nOne\n\ntwo\n\n"));
  });

  it("starts a new run of text after thinking", async () => {
    expect(await streamed([text("A\n"), thought("B"), text("\nC")])).toEqual([
      { type: "text_delta", text: "A" },
      { type: "thinking_delta", text: "B" },
      { type: "text_delta", text: "C" },
    ]);
  });
});

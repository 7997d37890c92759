// One bad image never poisons a session (src/providers/image-repair.ts): a 400 about an image
// replaces the newest image in the history with a note and sends the request once more; a 400
// about something else, a history without images, or a second refusal go to the caller.

import { describe, expect, it } from "vitest";
import { ProviderError } from "../src/core/errors.js";
import { emptyUsage, type ImageBlock, type Message } from "../src/core/messages.js";
import { withImageRepair } from "../src/providers/image-repair.js";
import type { ModelReply, ModelRequest, Provider } from "../src/providers/provider.js";
import { drain } from "./support/drain.js";

const image = (data: string): ImageBlock => ({ type: "image", mediaType: "image/png", data });

/** Two read results, each with its image: the newest is r2's. */
function history(): Message[] {
  const result = (id: string, data: string) => ({
    type: "tool_result" as const,
    tool_use_id: id,
    content: [{ type: "text" as const, text: `${id}.png: PNG, 1x1` }, image(data)],
  });
  const call = (id: string) => ({ type: "tool_use" as const, id, name: "read", input: {} });
  return [
    { role: "user", content: "look" },
    { role: "assistant", content: [call("r1")] },
    { role: "user", content: [result("r1", "AAAA")] },
    { role: "assistant", content: [call("r2")] },
    { role: "user", content: [result("r2", "BBBB")] },
  ];
}

const done: ModelReply = {
  message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
  stopReason: "end_turn",
  rawStopReason: "end_turn",
  usage: emptyUsage(),
};

/** A provider that throws the given errors in turn, then replies; it records what it was sent. */
function failing(...errors: Error[]) {
  const sent: string[] = [];
  const provider: Provider = {
    name: "test",
    model: "m",
    // biome-ignore lint/correctness/useYield: a provider that fails before streaming anything
    async *stream(request) {
      sent.push(JSON.stringify(request.messages));
      const error = errors.shift();
      if (error) throw error;
      return done;
    },
  };
  return { provider, sent };
}

const request = (messages: Message[]): ModelRequest => ({
  system: "",
  messages,
  tools: [],
  signal: new AbortController().signal,
});

const imageError = () =>
  new ProviderError(
    "invalid_request",
    "The Anthropic API rejected the request (messages.4.content.0.tool_result.content.1.image.source.base64: Could not process image).",
    400,
  );

describe("a request refused because of an image", () => {
  it("is sent again with the newest image replaced by a note, the repair reported", async () => {
    const { provider, sent } = failing(imageError());
    const repairs: string[] = [];
    const messages = history();
    const { events, result } = await drain(
      withImageRepair(provider, (r) => repairs.push(r)).stream(request(messages)),
    );
    expect(result).toBe(done);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toContain("AAAA");
    expect(sent[1]).not.toContain("BBBB");
    expect(sent[1]).toContain(
      "[image: PNG, 3 bytes; removed: the API rejected it (The Anthropic API rejected the request",
    );
    // The history the loop holds is repaired too, so the next request does not send it again.
    expect(JSON.stringify(messages)).not.toContain("BBBB");
    expect(repairs).toEqual([
      expect.stringMatching(
        /^The API rejected an image \(.*Could not process image\)\.\); the newest image was replaced/,
      ),
    ]);
    expect(events).toEqual([
      { type: "retry", attempt: 2, delayMs: 0, reason: "the API rejected an image" },
    ]);
  });

  it("is refused to the caller when it is refused again", async () => {
    const { provider, sent } = failing(imageError(), imageError());
    const error = await drain(withImageRepair(provider).stream(request(history()))).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(sent).toHaveLength(2);
  });

  it("goes to the caller unchanged when the history holds no image", async () => {
    const { provider, sent } = failing(imageError());
    const messages: Message[] = [{ role: "user", content: "look" }];
    const error = await drain(withImageRepair(provider).stream(request(messages))).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(sent).toHaveLength(1);
  });

  it("a 400 about something else is not an image repair", async () => {
    const other = new ProviderError("invalid_request", "max_tokens: must be at least 1", 400);
    const { provider, sent } = failing(other);
    const error = await drain(withImageRepair(provider).stream(request(history()))).catch((e) => e);
    expect(error).toBe(other);
    expect(sent).toHaveLength(1);
  });
});

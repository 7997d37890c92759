// The CLI harness's FakeModel: one view of both fakes for end-to-end tests, with an intercept
// that sees the last user text whatever the protocol, and a per-request record.

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it, onTestFinished } from "vitest";
import { type FakeModel, type Protocol, startFakeModel } from "./support/cli-harness.js";
import { reply, text } from "./support/fake-anthropic-server.js";

async function fakeModel(protocol: Protocol, options?: { contextWindow?: number }) {
  const model = await startFakeModel(protocol, options);
  onTestFinished(() => model.close());
  return model;
}

/** Posts a conversation through the official SDK, and returns the reply's text or "refused". */
async function anthropicAsk(model: FakeModel, messages: Anthropic.MessageParam[]) {
  const client = new Anthropic({ apiKey: "k", baseURL: model.url, maxRetries: 0 });
  const request = { model: "m", max_tokens: 100, messages };
  try {
    const message = await client.messages.stream(request).finalMessage();
    return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  } catch (error) {
    if (error instanceof Anthropic.APIError) return "refused";
    throw error;
  }
}

async function openaiAsk(model: FakeModel, messages: OpenAI.ChatCompletionMessageParam[]) {
  const client = new OpenAI({ apiKey: "k", baseURL: model.url, maxRetries: 0 });
  try {
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true });
    let reply = "";
    for await (const chunk of stream) reply += chunk.choices[0]?.delta.content ?? "";
    return reply;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return "refused";
    throw error;
  }
}

const SUMMARIZE = "Summarize the conversation so far.";

/**
 * Scripts "scripted" for every request, with an intercept that answers SUMMARIZE with "a summary";
 * returns the last user texts the intercept sees.
 */
function scriptSummaries(model: FakeModel): string[] {
  const seen: string[] = [];
  model.script([reply(text("scripted"))], {
    cycle: true,
    intercept: ({ lastUserText }) => {
      seen.push(lastUserText);
      return lastUserText === SUMMARIZE ? reply(text("a summary")) : undefined;
    },
  });
  return seen;
}

describe("a FakeModel's intercept", () => {
  it("sees the Anthropic user text after tool results, and nothing when only results come", async () => {
    const model = await fakeModel("anthropic");
    const seen = scriptSummaries(model);
    const call = { type: "tool_use" as const, id: "t1", name: "bash", input: {} };
    const result = { type: "tool_result" as const, tool_use_id: "t1", content: "ok" };
    const history: Anthropic.MessageParam[] = [
      { role: "user", content: "list files" },
      { role: "assistant", content: [call] },
    ];
    expect(await anthropicAsk(model, [...history, { role: "user", content: [result] }])).toBe(
      "scripted",
    );
    const summarize = { type: "text" as const, text: SUMMARIZE };
    expect(
      await anthropicAsk(model, [...history, { role: "user", content: [result, summarize] }]),
    ).toBe("a summary");
    expect(seen).toEqual(["", SUMMARIZE]);
  });

  it("sees the OpenAI user message that comes last, and nothing after a tool message", async () => {
    const model = await fakeModel("openai");
    const seen = scriptSummaries(model);
    const call = {
      id: "c1",
      type: "function" as const,
      function: { name: "bash", arguments: "{}" },
    };
    const history: OpenAI.ChatCompletionMessageParam[] = [
      { role: "user", content: "list files" },
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", tool_call_id: "c1", content: "ok" },
    ];
    expect(await openaiAsk(model, history)).toBe("scripted");
    expect(await openaiAsk(model, [...history, { role: "user", content: SUMMARIZE }])).toBe(
      "a summary",
    );
    expect(seen).toEqual(["", SUMMARIZE]);
  });
});

describe("a FakeModel's record of requests", () => {
  it("gives each Anthropic request's status, bytes, tokens and cache reads", async () => {
    const model = await fakeModel("anthropic", { contextWindow: 1_000 });
    model.script([reply(text("one")), reply(text("two"))]);
    const marked = (value: string) => ({
      type: "text" as const,
      text: value,
      cache_control: { type: "ephemeral" as const },
    });
    const first: Anthropic.MessageParam = { role: "user", content: [marked("a".repeat(400))] };
    expect(await anthropicAsk(model, [first])).toBe("one");
    expect(await anthropicAsk(model, [{ role: "user", content: "b".repeat(8_000) }])).toBe(
      "refused",
    );
    const second: Anthropic.MessageParam[] = [
      { role: "user", content: [{ type: "text", text: "a".repeat(400) }] },
      { role: "assistant", content: "one" },
      { role: "user", content: [marked("more")] },
    ];
    expect(await anthropicAsk(model, second)).toBe("two");

    const requests = model.requests();
    expect(requests.map((request) => request.status)).toEqual([200, 400, 200]);
    // A block's JSON is its text and 25 characters, and a token four characters: the first
    // prompt is 107 tokens, the refused one 2,007, the last 107 + 7 ("one") + 8 ("more").
    expect(requests.map((request) => request.tokens)).toEqual([107, 2_007, 122]);
    expect(requests.map((request) => request.cacheRead)).toEqual([0, 0, 107]);
    for (const request of requests) expect(request.bytes).toBeGreaterThan(request.tokens);
  });

  it("gives each OpenAI request's status, bytes and tokens, and never a cache read", async () => {
    const model = await fakeModel("openai");
    model.script([reply(text("one"))]);
    model.setContextWindow(1_000);
    expect(await openaiAsk(model, [{ role: "user", content: "b".repeat(8_000) }])).toBe("refused");
    expect(await openaiAsk(model, [{ role: "user", content: "hi" }])).toBe("one");
    const messageTokens = Math.ceil(JSON.stringify({ role: "user", content: "hi" }).length / 4);
    expect(model.requests()).toEqual([
      {
        status: 400,
        refused: true,
        bytes: expect.any(Number),
        tokens: 2_007,
        cacheRead: 0,
        body: expect.stringContaining("bbbb"),
      },
      {
        status: 200,
        refused: false,
        bytes: expect.any(Number),
        tokens: messageTokens,
        cacheRead: 0,
        body: expect.stringContaining('"hi"'),
      },
    ]);
  });
});

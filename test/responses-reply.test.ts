// The Responses reply as events arrive, and the same reply sent back as input items: the order
// of reasoning items among the others is the model's, both ways.

import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import type { ServerContext } from "../src/providers/openai-errors.js";
import { addEvent, finishResponse, startResponse } from "../src/providers/responses-reply.js";
import { toResponsesInput, toResponsesTools } from "../src/providers/responses-request.js";
import { webSearchSchema } from "../src/providers/server-tools.js";

const server: ServerContext = {
  name: "openai",
  baseURL: "http://x/v1",
  model: "m",
  apiKeyEnv: null,
};

const reasoning = (id: string) => ({
  id,
  type: "reasoning",
  summary: [],
  encrypted_content: `sealed-${id}`,
});

/** Each item announced and closed at once, as a model that wrote them whole would send them. */
function eventsFor(items: Record<string, unknown>[]): ResponseStreamEvent[] {
  const events = items.flatMap((item, index) => [
    { type: "response.output_item.added", output_index: index, item, sequence_number: 0 },
    { type: "response.output_item.done", output_index: index, item, sequence_number: 0 },
  ]);
  const response = { status: "completed", incomplete_details: null, usage: undefined };
  return [...events, { type: "response.completed", response, sequence_number: 0 }] as never;
}

describe("a Responses reply with reasoning between its items", () => {
  const items = [
    reasoning("rs_1"),
    {
      id: "msg_1",
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "First I look.", annotations: [] }],
    },
    reasoning("rs_2"),
    {
      id: "fc_1",
      type: "function_call",
      call_id: "call_1",
      name: "bash",
      arguments: '{"command":"ls"}',
      status: "completed",
    },
  ];

  function received() {
    const reply = startResponse();
    for (const event of eventsFor(items)) addEvent(reply, event, server);
    return finishResponse(reply, "gpt-6.1-sol", server.baseURL);
  }

  it("keeps each reasoning item whole, in the place the model put it", () => {
    const { message, stopReason } = received();
    expect(stopReason).toBe("tool_use");
    expect(message.content.map((block) => block.type)).toEqual([
      "opaque",
      "text",
      "opaque",
      "tool_use",
    ]);
    expect(message.content[2]).toEqual({ type: "opaque", protocol: "responses", item: items[2] });
  });

  it("sends each reasoning item back right before the item it preceded", () => {
    const input = toResponsesInput(
      [{ role: "user", content: "go" }, received().message],
      "gpt-6.1-sol",
    );
    expect(input.map((item) => ("id" in item && item.id) || item.type)).toEqual([
      "message",
      "rs_1",
      "message",
      "rs_2",
      "function_call",
    ]);
  });

  it("leaves out a reasoning item the reply was cut off in, which has no encrypted content yet", () => {
    const reply = startResponse();
    const cut = { id: "rs_cut", type: "reasoning", summary: [] };
    addEvent(
      reply,
      {
        type: "response.output_item.added",
        output_index: 0,
        item: cut,
        sequence_number: 0,
      } as never,
      server,
    );
    const response = { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
    addEvent(reply, { type: "response.incomplete", response, sequence_number: 1 } as never, server);
    const finished = finishResponse(reply, "gpt-6.1-sol", server.baseURL);
    expect(finished.message.content).toEqual([]);
    expect(finished.stopReason).toBe("max_tokens");
  });

  it("reports a stream that ends before the reply did, so that it is tried again", () => {
    const reply = startResponse();
    addEvent(reply, eventsFor([reasoning("rs_1")])[0] as ResponseStreamEvent, server);
    expect(() => finishResponse(reply, "gpt-6.1-sol", server.baseURL)).toThrow(
      "The reply from http://x/v1 ended before the model finished.",
    );
  });
});

describe("a Responses reply with a hosted web search", () => {
  const search = {
    id: "ws_1",
    type: "web_search_call",
    status: "completed",
    action: {
      type: "search",
      query: "node lts",
      sources: [{ type: "url", url: "https://a.test" }],
    },
  };
  const answer = {
    id: "msg_1",
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "Node 24.", annotations: [] }],
  };

  function received(items: Record<string, unknown>[]) {
    const reply = startResponse();
    for (const event of eventsFor(items)) addEvent(reply, event, server);
    return finishResponse(reply, "gpt-6.1-sol", server.baseURL);
  }

  it("offers the marked tool as OpenAI's hosted web_search, the others as functions", () => {
    const tools = toResponsesTools([
      { name: "read", description: "Read.", input_schema: { type: "object", properties: {} } },
      { name: "web_search", description: "Search.", input_schema: webSearchSchema() },
    ]);
    expect(tools.map((tool) => tool.type)).toEqual(["function", "web_search"]);
    expect(tools[1]).toEqual({ type: "web_search" });
  });

  it("keeps the web_search_call item whole and sends it back in its place, after its reasoning", () => {
    const { message } = received([reasoning("rs_1"), search, answer]);
    expect(message.content[1]).toEqual({ type: "opaque", protocol: "responses", item: search });
    const input = toResponsesInput([{ role: "user", content: "go" }, message], "gpt-6.1-sol");
    expect(input.slice(1, 3)).toEqual([reasoning("rs_1"), search]);
    expect(input.map((item) => item.type)).toEqual([
      "message",
      "reasoning",
      "web_search_call",
      "message",
    ]);
  });

  it("sends back the reasoning of a reply cut off after a search, which the search followed", () => {
    const { message } = received([reasoning("rs_1"), search]);
    const input = toResponsesInput([{ role: "user", content: "go" }, message], "gpt-6.1-sol");
    expect(input.map((item) => item.type)).toEqual(["message", "reasoning", "web_search_call"]);
  });

  it("leaves out another model's search with its reasoning: the item's id binds it to them", () => {
    const { message } = received([reasoning("rs_1"), search, answer]);
    const input = toResponsesInput([{ role: "user", content: "go" }, message], "gpt-6.2-sol");
    expect(input.map((item) => item.type)).toEqual(["message", "message"]);
  });

  it("leaves out a search item the reply was cut off in before it closed", () => {
    const reply = startResponse();
    const started = { id: "ws_cut", type: "web_search_call", status: "in_progress" };
    const added = { type: "response.output_item.added", output_index: 0, item: started };
    addEvent(reply, { ...added, sequence_number: 0 } as never, server);
    const response = { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
    addEvent(reply, { type: "response.incomplete", response, sequence_number: 1 } as never, server);
    expect(finishResponse(reply, "gpt-6.1-sol", server.baseURL).message.content).toEqual([]);
  });
});

describe("a Responses stream that reports the context window overflowed", () => {
  const message = "Your input exceeds the context window of this model.";
  const failedResponse = { status: "failed", error: { code: "context_length_exceeded", message } };
  it.each([
    [
      "an error event in the API reference's flat form",
      { type: "error", code: "context_length_exceeded", message, param: "input" },
    ],
    ["response.failed", { type: "response.failed", response: failedResponse }],
    [
      "response.incomplete with the overflow code",
      {
        type: "response.incomplete",
        response: {
          status: "incomplete",
          incomplete_details: { reason: "context_length_exceeded" },
        },
      },
    ],
  ])("is too long, for compaction, after %s", (_, event) => {
    const reply = startResponse();
    const adding = () => addEvent(reply, { ...event, sequence_number: 3 } as never, server);
    expect(adding).toThrow(
      expect.objectContaining({
        kind: "context_too_long",
        message: expect.stringMatching(
          /^The conversation is too long for the model's context window \(context_length_exceeded: /,
        ),
      }),
    );
  });
});

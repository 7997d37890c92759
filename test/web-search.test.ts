import { describe, expect, it } from "vitest";
import type { LoopEvent } from "../src/core/events.js";
import type { AssistantBlock } from "../src/core/messages.js";
import { emptyUsage } from "../src/core/messages.js";
import { searchEvents } from "../src/web/web-search.js";
import { validEvent } from "./support/schemas.js";

const answer = (...content: AssistantBlock[]): LoopEvent => ({
  type: "assistant_message",
  turn: 1,
  message: { role: "assistant", content },
  stopReason: "end_turn",
  usage: emptyUsage(),
  durationMs: 10,
});

const opaque = (item: Record<string, unknown>): AssistantBlock => ({
  type: "opaque",
  protocol: "anthropic",
  item,
});

/** Anthropic's two blocks of one search: the query asked, then its result (or error). */
const anthropicSearch = (query: string, content: unknown): AssistantBlock[] => [
  opaque({ type: "server_tool_use", id: "s1", name: "web_search", input: { query } }),
  opaque({ type: "web_search_tool_result", tool_use_id: "s1", content }),
];

describe("each web search in a reply is an event", () => {
  it("names the query and says when the search failed, with the API's error code", () => {
    const events = searchEvents(
      answer(
        ...anthropicSearch("node 20 fetch", {
          type: "web_search_tool_result_error",
          error_code: "max_uses_exceeded",
        }),
        { type: "text", text: "I could not search more." },
      ),
    );
    expect(events).toEqual([
      {
        type: "part",
        part: "web",
        name: "search",
        line: 'web search for "node 20 fetch" failed: max_uses_exceeded',
        data: { query: "node 20 fetch", error: "max_uses_exceeded" },
      },
    ]);
  });

  it("names what an Anthropic search found, with its price in the event's dollars", () => {
    const events = searchEvents(
      answer(
        ...anthropicSearch("undici", [
          { type: "web_search_result", title: "Undici", url: "https://a.test/undici" },
        ]),
      ),
    );
    expect(events.map((event) => [event.line, event.dollars])).toEqual([
      ['searched the web for "undici": 1 result (https://a.test/undici), $0.01', 0.01],
    ]);
    // stream-json prints it as it is: the schema scripts rely on takes its price.
    for (const event of events)
      expect(validEvent(event), JSON.stringify(validEvent.errors)).toBe(true);
  });

  it("shows each of OpenAI's web_search_call items: a search is priced, opening a page is not", () => {
    const call = (action: Record<string, unknown>, status = "completed"): AssistantBlock => ({
      type: "opaque",
      protocol: "responses",
      item: { type: "web_search_call", id: "ws_1", status, action },
    });
    const sources = [
      { type: "url", url: "https://a.test" },
      { type: "url", url: "https://b.test" },
    ];
    const events = searchEvents(
      answer(
        call({ type: "search", query: "old", queries: ["node lts", "node 24"], sources }),
        call({ type: "open_page", url: "https://a.test/page" }),
        call({ type: "search", query: "down" }, "failed"),
      ),
    );
    expect(events.map((event) => [event.line, event.dollars])).toEqual([
      [
        'searched the web for "node lts; node 24": 2 results (https://a.test, https://b.test), $0.01',
        0.01,
      ],
      ["web search opened https://a.test/page", undefined],
      ['web search for "down" failed: failed', undefined],
    ]);
  });

  it("makes none for a reply without a search, or for another protocol's blocks", () => {
    expect(searchEvents(answer({ type: "text", text: "No search." }))).toEqual([]);
    const responses: AssistantBlock = {
      type: "opaque",
      protocol: "responses",
      item: { type: "web_search_tool_result", tool_use_id: "x", content: [] },
    };
    expect(searchEvents(answer(responses))).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import type { LoopEvent } from "../src/core/events.js";
import type { AssistantBlock } from "../src/core/messages.js";
import { emptyUsage } from "../src/core/messages.js";
import { searchEvents } from "../src/web/web-search.js";

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

describe("each web search in a reply is an event", () => {
  it("names the query and says when the search failed, with the API's error code", () => {
    const events = searchEvents(
      answer(
        opaque({
          type: "server_tool_use",
          id: "s1",
          name: "web_search",
          input: { query: "node 20 fetch" },
        }),
        opaque({
          type: "web_search_tool_result",
          tool_use_id: "s1",
          content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
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

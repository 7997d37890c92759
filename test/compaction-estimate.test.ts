import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSizeEstimator } from "../src/compaction/estimate.js";
import type { Message } from "../src/core/messages.js";

const request = { system: "You are a coding agent.", tools: [] };
/** What the estimator must give before any usage report: 0.3 tokens per character of JSON. */
const expected = (messages: readonly Message[]) => {
  const chars = messages.reduce((sum, message) => sum + JSON.stringify(message.content).length, 0);
  return Math.ceil((request.system.length + JSON.stringify([]).length + chars) * 0.3);
};

describe("createSizeEstimator", () => {
  it("measures a history that grows, shrinks and has messages replaced as if each were new", () => {
    const text = fc.string({ maxLength: 30 });
    const message = text.map((content): Message => ({ role: "user", content }));
    // Each step appends messages, replaces one (as clearing a result does), or keeps a prefix.
    const step = fc.oneof(
      fc.array(message, { minLength: 1, maxLength: 3 }).map((added) => ({ added })),
      fc.tuple(fc.nat(), message).map(([at, replacement]) => ({ at, replacement })),
      fc.nat().map((keep) => ({ keep })),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        const estimator = createSizeEstimator();
        let messages: Message[] = [];
        for (const change of steps) {
          if ("added" in change) messages = [...messages, ...change.added];
          else if ("keep" in change) messages = messages.slice(0, change.keep);
          else if (messages.length > 0) {
            messages = messages.with(change.at % messages.length, change.replacement);
          }
          expect(estimator.tokens(request, messages)).toBe(expected(messages));
        }
      }),
      { numRuns: 300 },
    );
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type {
  AssistantBlock,
  Message,
  ToolResultBlock,
  ToolUseBlock,
  UserBlock,
} from "../src/core/messages.js";
import { MISSING_RESULT, prepareForRequest, repairTranscript } from "../src/transcript/repair.js";
import { isValidTranscript } from "../src/transcript/valid.js";
import { validateRequest } from "./support/fake-anthropic-validation.js";

const text = (value: string) => ({ type: "text", text: value }) as const;
const call = (id: string): ToolUseBlock => ({
  type: "tool_use",
  id,
  name: "bash",
  input: { command: `echo ${id}` },
});
const result = (id: string, content = `output of ${id}`): ToolResultBlock => ({
  type: "tool_result",
  tool_use_id: id,
  content,
  is_error: false,
});
const missing = (id: string): ToolResultBlock => ({
  type: "tool_result",
  tool_use_id: id,
  content: MISSING_RESULT,
  is_error: true,
});
const user = (...content: UserBlock[]): Message => ({ role: "user", content });
const assistant = (...content: AssistantBlock[]): Message => ({ role: "assistant", content });
const prompt: Message = { role: "user", content: "do the task" };

const isValid = (messages: Message[]) =>
  validateRequest({ model: "m", max_tokens: 10, messages }) === null;

interface Case {
  name: string;
  input: Message[];
  output: Message[];
  repairs: RegExp[];
}

const cases: Case[] = [
  {
    name: "leaves a valid transcript as it is",
    input: [prompt, assistant(text("ok"), call("a")), user(result("a")), assistant(text("done"))],
    output: [prompt, assistant(text("ok"), call("a")), user(result("a")), assistant(text("done"))],
    repairs: [],
  },
  {
    name: "answers a tool call left without a result at the end",
    input: [prompt, assistant(call("a"))],
    output: [prompt, assistant(call("a")), user(missing("a"))],
    repairs: [/^Answered tool call a \(bash\), which had no result, with an error\.$/],
  },
  {
    name: "merges a prompt typed after interrupted tool results, results first",
    input: [prompt, assistant(call("a"), call("b")), user(result("a")), user(text("go on"))],
    output: [
      prompt,
      assistant(call("a"), call("b")),
      user(result("a"), missing("b"), text("go on")),
    ],
    repairs: [/tool call b/],
  },
  {
    name: "answers calls when a plain prompt follows them",
    input: [prompt, assistant(call("a")), { role: "user", content: "stop that" }],
    output: [prompt, assistant(call("a")), user(missing("a"), text("stop that"))],
    repairs: [/tool call a/],
  },
  {
    name: "drops a result whose call is not in the message before",
    input: [prompt, assistant(text("hi")), user(result("x"), text("next"))],
    output: [prompt, assistant(text("hi")), user(text("next"))],
    repairs: [/^Dropped a result for tool call x, which the message before it does not make\.$/],
  },
  {
    name: "drops a message of orphan results and joins the assistant messages around it",
    input: [prompt, assistant(text("one")), user(result("x")), assistant(text("two"))],
    output: [prompt, assistant(text("one"), text("two"))],
    repairs: [/tool call x/, /empty user message/],
  },
  {
    name: "drops empty and blank text blocks",
    input: [prompt, assistant(text(""), text(" \n"), call("a")), user(result("a"))],
    output: [prompt, assistant(call("a")), user(result("a"))],
    repairs: [/^Dropped 2 empty text blocks from an assistant message\.$/],
  },
  {
    name: "drops empty messages",
    input: [{ role: "user", content: "" }, prompt, assistant(text(""))],
    output: [prompt],
    repairs: [/empty user message/, /empty text block/, /empty assistant message/],
  },
  {
    name: "drops assistant messages before the first user message",
    input: [assistant(text("hello")), prompt],
    output: [prompt],
    repairs: [/^Dropped an assistant message before the first user message/],
  },
  {
    name: "renames a repeated id inside one message, and its second result with it",
    input: [prompt, assistant(call("a"), call("a")), user(result("a", "1"), result("a", "2"))],
    output: [
      prompt,
      assistant(call("a"), { ...call("a"), id: "a_2" }),
      user(result("a", "1"), result("a_2", "2")),
    ],
    repairs: [/^Renamed the repeated tool call id a to a_2\.$/],
  },
  {
    name: "renames an id a provider reused in a later turn",
    input: [
      prompt,
      assistant(call("c")),
      user(result("c")),
      assistant(call("c")),
      user(result("c")),
    ],
    output: [
      prompt,
      assistant(call("c")),
      user(result("c")),
      assistant({ ...call("c"), id: "c_2" }),
      user(result("c_2", "output of c")),
    ],
    repairs: [/id c to c_2/],
  },
  {
    name: "puts tool results first and in the order of their calls",
    input: [prompt, assistant(call("a"), call("b")), user(text("note"), result("b"), result("a"))],
    output: [prompt, assistant(call("a"), call("b")), user(result("a"), result("b"), text("note"))],
    repairs: [/^Put the tool results first, in the order of their calls\.$/],
  },
  {
    name: "keeps only the first of two results for one call",
    input: [prompt, assistant(call("a")), user(result("a", "first"), result("a", "again"))],
    output: [prompt, assistant(call("a")), user(result("a", "first"))],
    repairs: [/^Dropped a second result for tool call a\.$/],
  },
  {
    name: "trims trailing whitespace from a final assistant message (pause_turn)",
    input: [prompt, assistant(text("thinking about it\n\n"))],
    output: [prompt, assistant(text("thinking about it"))],
    repairs: [/trailing whitespace/],
  },
  {
    name: "gives an empty error result a text",
    input: [prompt, assistant(call("a")), user({ ...result("a", ""), is_error: true })],
    output: [
      prompt,
      assistant(call("a")),
      user({ ...result("a", "The tool failed without printing anything."), is_error: true }),
    ],
    repairs: [/empty error result for tool call a/],
  },
];

const ids = fc.constantFrom("a", "b", "c");
const userBlock = fc.oneof(
  fc.constantFrom("", " ", "hi", "ok \n").map(text),
  ids.map((id) => result(id)),
  ids.map((id) => ({ ...result(id, ""), is_error: true })),
);
const assistantBlock = fc.oneof(
  fc.constantFrom("", "hi ", "sure").map(text),
  ids.map(call),
  ids.map((id) => ({ ...call(id), name: "" })),
);
const anyMessage = fc.oneof(
  fc.array(userBlock, { maxLength: 4 }).map((content): Message => ({ role: "user", content })),
  fc.constantFrom("", "a prompt").map((content): Message => ({ role: "user", content })),
  fc
    .array(assistantBlock, { maxLength: 4 })
    .map((content): Message => ({ role: "assistant", content })),
);
const anyTranscript = fc.array(anyMessage, { maxLength: 8 });

describe("prepareForRequest", () => {
  it.each(cases)("$name", ({ input, output, repairs }) => {
    const before = structuredClone(input);
    const prepared = prepareForRequest(input);
    expect(prepared.messages).toEqual(output);
    expect(prepared.repairs).toHaveLength(repairs.length);
    repairs.forEach((pattern, index) => {
      expect(prepared.repairs[index]).toMatch(pattern);
    });
    expect(input).toEqual(before);
    expect(isValid(prepared.messages)).toBe(true);
  });

  it("turns any mix of blocks and roles into a transcript the API accepts", () => {
    fc.assert(
      fc.property(anyTranscript, (messages) => {
        const before = structuredClone(messages);
        const prepared = prepareForRequest(messages);
        expect(messages).toEqual(before);
        if (prepared.messages.length > 0) {
          expect(validateRequest({ model: "m", max_tokens: 10, messages: prepared.messages })).toBe(
            null,
          );
        }
        expect(prepareForRequest(prepared.messages).repairs).toEqual([]);
      }),
      { numRuns: 1_000 },
    );
  });

  it("skips the repairs exactly when they would leave the transcript as it is", () => {
    const leftAsItIs = (messages: Message[]) => {
      const repaired = repairTranscript(messages);
      return (
        repaired.repairs.length === 0 &&
        repaired.messages.length === messages.length &&
        repaired.messages.every((message, index) => message === messages[index])
      );
    };
    // A history grows the way a session's does, from a valid start (what the repairs give),
    // with a message sometimes replaced, as compaction does; it is checked after every step,
    // so the check sees the history it found valid last with messages added or changed.
    // A turn as the loop records it: a call and its result, its id new or one used before.
    const turn = fc
      .constantFrom("a", "b", "c", "d", "e", "f")
      .map((id) => ({ added: [assistant(call(id)), user(result(id))] }));
    const step = fc.oneof(
      { arbitrary: turn, weight: 3 },
      { arbitrary: anyMessage.map((message) => ({ added: [message] })), weight: 2 },
      { arbitrary: fc.tuple(fc.nat(), anyMessage).map(([at, by]) => ({ at, by })), weight: 1 },
    );
    const start = anyTranscript.map((messages) => repairTranscript(messages).messages);
    fc.assert(
      fc.property(start, fc.array(step, { maxLength: 10 }), (first, steps) => {
        let messages = first;
        expect(isValidTranscript(messages)).toBe(leftAsItIs(messages));
        for (const change of steps) {
          if ("added" in change) messages = [...messages, ...change.added];
          else if (messages.length > 0) {
            messages = messages.with(change.at % messages.length, change.by);
          }
          expect(isValidTranscript(messages)).toBe(leftAsItIs(messages));
        }
      }),
      { numRuns: 2_000 },
    );
  });
});

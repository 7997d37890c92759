// Issue 18: a server whose tool parser gives two calls of one reply the same id (each at its
// own index) made agentloop run the first, answer the second with `Unknown tool ""` and send
// a request the server rejected. Whatever a server streams, every call must keep its own name
// and arguments, carry an id no other call in the conversation has, and every request after
// it must pass the fake server's strict check. The same holds for servers that change a
// call's id from chunk to chunk, send its id on some chunks only, or send its name late.

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import type { AssistantBlock, Message, ToolUseBlock } from "../src/core/messages.js";
import { agentLoop, createLoopState } from "../src/loop.js";
import { createOpenAIProvider } from "../src/providers/openai.js";
import { addChunk, finishReply, startReply } from "../src/providers/openai-reply.js";
import type { ToolDefinition } from "../src/providers/provider.js";
import { createBashTool } from "../src/tools/bash.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { prepareForRequest, repairReply } from "../src/transcript/repair.js";
import { drain } from "./support/drain.js";
import {
  type FakeOpenAI,
  type FakeTurn,
  type RecordedRequest,
  serveOpenAI,
  type ToolCallQuirk,
} from "./support/fake-openai-server.js";
import { createProbeTool, PROBE } from "./support/probe-tool.js";
import { bash, text } from "./support/scripted-provider.js";

const probe = (id: string, outcome = "ok"): ToolUseBlock => ({
  type: "tool_use",
  id,
  name: PROBE,
  input: { outcome },
});

const tools: ToolDefinition[] = [
  {
    name: "bash",
    description: "Run a command.",
    input_schema: { type: "object", properties: { command: { type: "string" } } },
  },
];

/** One request through the SDK; returns the reply and the repairs the provider reported. */
async function ask(server: FakeOpenAI, messages: Message[] = [{ role: "user", content: "hi" }]) {
  const repairs: string[] = [];
  const provider = createOpenAIProvider({
    baseURL: server.url,
    model: "fake-model",
    onRepair: (repair) => repairs.push(repair),
  });
  const signal = new AbortController().signal;
  const { result } = await drain(provider.stream({ system: "Be brief.", messages, tools, signal }));
  return { reply: result, repairs };
}

/** The agent loop with real bash and the probe tool, against the fake server. */
async function runLoop(turns: FakeTurn[], messages: Message[] = []) {
  const server = await serveOpenAI(turns);
  const cwd = mkdtempSync(join(tmpdir(), "agentloop-ids-"));
  const state = createLoopState([...messages, { role: "user", content: "do the task" }]);
  const repairs: string[] = [];
  const { result: stop } = await drain(
    agentLoop(state, {
      provider: createOpenAIProvider({
        baseURL: server.url,
        model: "fake-model",
        onRepair: (repair) => repairs.push(repair),
      }),
      toolbox: createToolbox([createBashTool({ cwd }), createProbeTool(() => {})]),
      system: "You are a test.",
      maxTurns: 10,
    }),
  );
  return { server, state, stop, cwd, repairs };
}

interface ChatMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

/** The assistant tool calls of a request, in order, as id, name and arguments. */
function chatCalls(request: RecordedRequest) {
  return (request.body.messages as ChatMessage[]).flatMap((message) =>
    (message.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      arguments: JSON.parse(call.function.arguments) as unknown,
    })),
  );
}

/** The tool messages of a request, in order, as [id, content]. */
function toolMessages(request: RecordedRequest): [string | undefined, string | null][] {
  return (request.body.messages as ChatMessage[])
    .filter((message) => message.role === "tool")
    .map((message) => [message.tool_call_id, message.content]);
}

/** Quirk lists with a label each, for test names. */
const withLabels = (lists: ToolCallQuirk[][]): [string, ToolCallQuirk[]][] =>
  lists.map((quirks) => [quirks.join(", "), quirks]);

const callsIn = (message: Message | undefined): ToolUseBlock[] =>
  message?.role === "assistant"
    ? message.content.filter((block): block is ToolUseBlock => block.type === "tool_use")
    : [];

const idsOf = (messages: Message[]) => messages.flatMap(callsIn).map((call) => call.id);

describe("the OpenAI provider, when a server gives two calls of a reply one id", () => {
  it("keeps each call's own name and arguments and renames the repeated id, saying so", async () => {
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [bash("dup", "echo one"), probe("dup")],
        quirks: ["same_id_twice"],
      },
    ]);
    const { reply, repairs } = await ask(server);
    expect(reply.message.content).toEqual([bash("dup", "echo one"), probe("dup_2")]);
    expect(repairs).toEqual([
      "Renamed the repeated tool call id dup in the model's reply to dup_2.",
    ]);
  });

  it.each(
    withLabels([[], ["whole_calls"], ["repeat_id_and_name"], ["empty_name_later"], ["name_later"]]),
  )("keeps three calls with one id apart, also with the quirks [%s]", async (_, quirks) => {
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [bash("same", "echo 1"), bash("same", "echo 2"), bash("same", "echo 3")],
        quirks: ["same_id_twice", ...quirks],
      },
    ]);
    const { reply, repairs } = await ask(server);
    expect(reply.message.content).toEqual([
      bash("same", "echo 1"),
      bash("same_2", "echo 2"),
      bash("same_3", "echo 3"),
    ]);
    expect(repairs).toHaveLength(2);
  });

  it("renames a call whose id an earlier call in the conversation has, past ids taken", async () => {
    const history: Message[] = [
      { role: "user", content: "first" },
      { role: "assistant", content: [bash("call_1", "ls"), bash("call_1_2", "pwd")] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_1", content: "a", is_error: false },
          { type: "tool_result", tool_use_id: "call_1_2", content: "/", is_error: false },
        ],
      },
    ];
    const server = await serveOpenAI([{ kind: "reply", content: [bash("call_1", "echo again")] }]);
    const { reply, repairs } = await ask(server, history);
    expect(reply.message.content).toEqual([bash("call_1_3", "echo again")]);
    expect(repairs).toEqual([
      "Renamed the repeated tool call id call_1 in the model's reply to call_1_3.",
    ]);
    expect(server.requests[0]?.status).toBe(200);
  });

  it("changes nothing and reports nothing when the ids are unique", async () => {
    const server = await serveOpenAI([
      { kind: "reply", content: [bash("a", "ls"), bash("b", "pwd")] },
    ]);
    const { reply, repairs } = await ask(server);
    expect(reply.message.content).toEqual([bash("a", "ls"), bash("b", "pwd")]);
    expect(repairs).toEqual([]);
  });
});

describe("the OpenAI provider, when a server changes, omits or delays what identifies a call", () => {
  const two = [bash("a", 'echo "first call"'), bash("b", 'echo "second call"')];

  it.each(
    withLabels([
      ["new_id_later"],
      ["new_id_later", "repeat_id_and_name"],
      ["new_id_later", "all_at_index_zero"],
      ["new_id_later", "empty_name_later"],
      ["name_later"],
      ["name_later", "all_at_index_zero"],
      ["name_later", "whole_calls", "all_at_index_zero"],
      ["id_on_some_deltas"],
      ["id_on_some_deltas", "repeat_id_and_name"],
      ["all_at_index_zero"],
      ["all_at_index_zero", "repeat_id_and_name"],
      ["all_at_index_zero", "whole_calls"],
    ]),
  )(
    "reads two calls, each with its first id, name and arguments, under [%s]",
    async (_, quirks) => {
      const server = await serveOpenAI([{ kind: "reply", content: two, quirks }]);
      const { reply, repairs } = await ask(server);
      expect(reply.message.content).toEqual(two);
      expect(repairs).toEqual([]);
    },
  );

  it('reads "" arguments of a parameterless tool when its id changes from chunk to chunk', async () => {
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [
          { type: "tool_use", id: "t", name: "list_todos", partialJson: "" },
          bash("b", "ls"),
        ],
        quirks: ["new_id_later", "all_at_index_zero"],
      },
    ]);
    const { reply } = await ask(server);
    expect(reply.message.content).toEqual([
      { type: "tool_use", id: "t", name: "list_todos", input: {} },
      bash("b", "ls"),
    ]);
  });
});

/** A reply assembled from raw chunks, each holding the given tool-call deltas. */
function assemble(...deltas: object[][]): AssistantBlock[] {
  const reply = startReply();
  for (const toolCalls of deltas) {
    const choice = { index: 0, delta: { tool_calls: toolCalls }, finish_reason: null };
    addChunk(reply, { choices: [choice] } as unknown as ChatCompletionChunk);
  }
  return finishReply(reply, () => "call_made_up", "test-model").message.content;
}

describe("assembling streamed tool calls by index", () => {
  it("keeps calls apart when their deltas interleave, ids only on the first", () => {
    expect(
      assemble(
        [{ index: 0, id: "a", function: { name: "bash", arguments: "" } }],
        [{ index: 1, id: "b", function: { name: "bash", arguments: '{"comm' } }],
        [{ index: 0, function: { arguments: '{"command":' } }],
        [{ index: 1, function: { arguments: 'and":"pwd"}' } }],
        [{ index: 0, function: { arguments: '"ls"}' } }],
      ),
    ).toEqual([bash("a", "ls"), bash("b", "pwd")]);
  });

  it("keeps calls with one id apart when their deltas interleave, each repeating the id", () => {
    expect(
      assemble(
        [
          { index: 0, id: "x", function: { name: "bash", arguments: '{"command":' } },
          { index: 1, id: "x", function: { name: "probe", arguments: '{"outcome":' } },
        ],
        [
          { index: 1, id: "x", function: { arguments: '"ok"}' } },
          { index: 0, id: "x", function: { arguments: '"ls"}' } },
        ],
      ),
    ).toEqual([bash("x", "ls"), probe("x")]);
  });

  it("takes the id from a later delta when the first had none", () => {
    expect(
      assemble(
        [{ index: 0, function: { name: "bash", arguments: '{"command":' } }],
        [{ index: 0, id: "late", function: { arguments: '"ls"}' } }],
      ),
    ).toEqual([bash("late", "ls")]);
  });

  it("keeps the name that came second when the first delta had an empty one", () => {
    expect(
      assemble(
        [{ index: 0, id: "a", type: "function", function: { name: "", arguments: "" } }],
        [{ index: 0, id: "a", type: "function", function: { name: "bash", arguments: "{" } }],
        [
          {
            index: 0,
            id: "",
            type: "function",
            function: { name: "", arguments: '"command":"ls"}' },
          },
        ],
      ),
    ).toEqual([bash("a", "ls")]);
  });

  it("continues the latest call when deltas carry no index, as before", () => {
    expect(
      assemble(
        [{ id: "a", function: { name: "bash", arguments: '{"command":"ls"}' } }],
        [{ id: "b", function: { name: "bash", arguments: "" } }],
        [{ function: { arguments: '{"command":"pwd"}' } }],
      ),
    ).toEqual([bash("a", "ls"), bash("b", "pwd")]);
  });
});

describe("repairing a reply as it arrives", () => {
  it("drops a call without a name, saying what it held, and keeps the rest", () => {
    const repaired = repairReply([], {
      role: "assistant",
      content: [
        text("Two."),
        bash("a", "ls"),
        { type: "tool_use", id: "b", name: "", input: { command: "pwd" } },
      ],
    });
    expect(repaired.message.content).toEqual([text("Two."), bash("a", "ls")]);
    expect(repaired.repairs).toEqual([
      `Dropped tool call b from the model's reply: it has no name (its input was {"command":"pwd"}).`,
    ]);
  });

  it("keeps the model that wrote the reply when it repairs it, since its reasoning is bound to it", () => {
    const reply: AssistantBlock[] = [text("two"), bash("call_1", "a"), bash("call_1", "b")];
    const repaired = repairReply([], { role: "assistant", content: reply, model: "gpt-6.1-sol" });
    expect(repaired.repairs).toHaveLength(1);
    expect(repaired.message.model).toBe("gpt-6.1-sol");
  });

  it("returns the very same message when nothing needs repair", () => {
    const message = { role: "assistant" as const, content: [bash("a", "ls")] };
    expect(repairReply([{ role: "user", content: "hi" }], message).message).toBe(message);
  });

  it("asks again when the only call had no name, rather than record an empty reply", async () => {
    const server = await serveOpenAI([
      {
        kind: "reply",
        content: [{ type: "tool_use", id: "n", name: "", input: { command: "ls" } }],
      },
      { kind: "reply", content: [bash("a", "ls")] },
    ]);
    const { reply, repairs } = await ask(server);
    expect(reply.message.content).toEqual([bash("a", "ls")]);
    expect(repairs).toEqual([
      `Dropped tool call n from the model's reply: it has no name (its input was {"command":"ls"}).`,
    ]);
    expect(server.requests).toHaveLength(2);
  });
});

describe("the agent loop on the OpenAI provider, when a server repeats tool-call ids", () => {
  it("runs both calls of a reply that gives them one id, and answers each under its own id", async () => {
    const { server, state, stop, cwd, repairs } = await runLoop([
      {
        kind: "reply",
        content: [text("Both."), bash("dup", "echo one > f && echo one"), probe("dup")],
        quirks: ["same_id_twice"],
      },
      { kind: "reply", content: [text("All done.")] },
    ]);
    expect(server.requests.map((request) => [request.status, request.rejection])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "All done." });
    expect(readFileSync(join(cwd, "f"), "utf8")).toBe("one\n");
    const second = server.requests[1] as RecordedRequest;
    expect(chatCalls(second)).toEqual([
      { id: "dup", name: "bash", arguments: { command: "echo one > f && echo one" } },
      { id: "dup_2", name: "probe", arguments: { outcome: "ok" } },
    ]);
    expect(toolMessages(second)).toEqual([
      ["dup", expect.stringMatching(/^one\n/)],
      ["dup_2", "probed"],
    ]);
    // What the loop ran and recorded already holds the unique ids: nothing to repair later.
    expect(idsOf(state.messages)).toEqual(["dup", "dup_2"]);
    expect(state.messages[2]?.content).toEqual([
      expect.objectContaining({ tool_use_id: "dup", is_error: false }),
      expect.objectContaining({ tool_use_id: "dup_2", content: "probed", is_error: false }),
    ]);
    expect(repairs).toEqual([
      "Renamed the repeated tool call id dup in the model's reply to dup_2.",
    ]);
    expect(prepareForRequest(state.messages).repairs).toEqual([]);
  });

  it("renames an id a later reply repeats from an earlier turn, and every request passes", async () => {
    const { server, state, repairs } = await runLoop([
      { kind: "reply", content: [bash("call_0", "echo first")] },
      {
        kind: "reply",
        content: [bash("call_0", "echo second"), bash("call_0", "echo third")],
        quirks: ["same_id_twice", "repeat_id_and_name"],
      },
      { kind: "reply", content: [text("Done.")] },
    ]);
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    expect(idsOf(state.messages)).toEqual(["call_0", "call_0_2", "call_0_3"]);
    expect(toolMessages(server.requests[2] as RecordedRequest)).toEqual([
      ["call_0", expect.stringMatching(/^first\n/)],
      ["call_0_2", expect.stringMatching(/^second\n/)],
      ["call_0_3", expect.stringMatching(/^third\n/)],
    ]);
    expect(repairs).toHaveLength(2);
  });

  it("runs each call once when the server changes a call's id from chunk to chunk", async () => {
    const { server, state } = await runLoop([
      {
        kind: "reply",
        content: [bash("a", "echo one"), bash("b", "echo two")],
        quirks: ["new_id_later", "all_at_index_zero"],
      },
      { kind: "reply", content: [text("Done.")] },
    ]);
    expect(server.requests.map((request) => request.status)).toEqual([200, 200]);
    expect(toolMessages(server.requests[1] as RecordedRequest)).toEqual([
      ["a", expect.stringMatching(/^one\n/)],
      ["b", expect.stringMatching(/^two\n/)],
    ]);
    expect(idsOf(state.messages)).toEqual(["a", "b"]);
  });

  it("resumes a history recorded before this fix, with a call that has no name", async () => {
    // What issue 18 left in session files: the second call, nameless, answered with an error.
    const broken: Message[] = [
      { role: "user", content: "list and print" },
      {
        role: "assistant",
        content: [
          bash("dup", "ls"),
          { type: "tool_use", id: "call_0123456789ab_1", name: "", input: { command: "pwd" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "dup", content: "f\n", is_error: false },
          {
            type: "tool_result",
            tool_use_id: "call_0123456789ab_1",
            content: 'Unknown tool "". Available tools: bash.',
            is_error: true,
          },
        ],
      },
      { role: "assistant", content: [text("Something went wrong.")] },
    ];
    const { server, repairs, stop } = await runLoop(
      [{ kind: "reply", content: [text("Resumed.")] }],
      broken,
    );
    expect(server.requests.map((request) => request.status)).toEqual([200]);
    expect(stop).toMatchObject({ reason: "end_turn", finalText: "Resumed." });
    expect(chatCalls(server.requests[0] as RecordedRequest)).toEqual([
      { id: "dup", name: "bash", arguments: { command: "ls" } },
    ]);
    expect(repairs).toEqual([
      "Dropped tool call call_0123456789ab_1, which has no name, and its result.",
    ]);
  });
});

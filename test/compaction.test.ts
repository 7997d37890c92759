// Compaction through the real loop, bash tool and a scripted model that counts tokens like a
// server: given a small context window and commands that print a lot, the history stays inside
// the window, every result reaches the model whole once, and nothing is lost.

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCompaction } from "../src/compaction/compaction.js";
import { ProviderError } from "../src/core/errors.js";
import type { CompactionEvent, LoopEvent, LoopStop } from "../src/core/events.js";
import { type Message, resultText, type ToolResultBlock } from "../src/core/messages.js";
import { agentLoop, createLoopState } from "../src/loop.js";
import type { ModelRequest } from "../src/providers/provider.js";
import { contextFromEntries } from "../src/session/replay.js";
import { openSessionWriter, readSession } from "../src/session/session-file.js";
import { createBashTool } from "../src/tools/bash.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { prepareForRequest } from "../src/transcript/repair.js";
import {
  bash,
  type ScriptedReply,
  scriptedProvider,
  text,
  tokensOf,
} from "./support/scripted-provider.js";

const FIRST_PROMPT = "Print the numbers in blocks and tell me when you are done.";

const isSummaryRequest = (request: ModelRequest) => {
  const last = request.messages.at(-1);
  return (
    last?.role === "user" && typeof last.content === "string" && last.content.includes("summary")
  );
};

/** A model that runs `commands` one per turn, answers summary requests, then finishes. */
function commandRunner(
  commands: string[],
  options: { failWith?: (request: ModelRequest) => Error | null } = {},
) {
  let next = 0;
  const respond = (request: ModelRequest): ScriptedReply | Error => {
    const failure = options.failWith?.(request);
    if (failure) return failure;
    if (isSummaryRequest(request)) return { content: [text(`Ran ${next} commands so far.`)] };
    const command = commands[next];
    next += 1;
    if (command === undefined) return { content: [text("All done.")] };
    return { content: [bash(`toolu_${next}`, command)] };
  };
  return Array.from({ length: 4 * commands.length + 8 }, () => respond);
}

interface RunOptions {
  contextWindow: number;
  auto?: boolean;
  failWith?: (request: ModelRequest) => Error | null;
  history?: Message[];
}

async function run(commands: string[], options: RunOptions) {
  const workspace = mkdtempSync(join(tmpdir(), "agentloop-compaction-"));
  const provider = scriptedProvider(commandRunner(commands, options), { countTokens: true });
  const requests: ModelRequest[] = [];
  const recording = {
    ...provider,
    stream(request: ModelRequest) {
      requests.push({ ...request, messages: structuredClone(request.messages) });
      return provider.stream(request);
    },
  };
  const writer = openSessionWriter(join(workspace, "sessions"), {
    type: "session",
    version: 1,
    id: "s1",
    cwd: workspace,
    model: "scripted-model",
    provider: "scripted",
    startedAt: new Date().toISOString(),
  });
  const history = options.history ?? [{ role: "user", content: FIRST_PROMPT }];
  for (const message of history) writer.recordMessage(message);
  const state = createLoopState(structuredClone(history));
  const toolbox = createToolbox([createBashTool({ cwd: workspace })]);
  const loop = agentLoop(state, {
    provider: recording,
    toolbox,
    system: "test",
    maxTurns: 200,
    compaction: createCompaction({
      contextWindow: options.contextWindow,
      outputReserve: 1000,
      auto: options.auto ?? true,
      resultsDirectory: join(workspace, "results"),
    }),
  });
  const events: LoopEvent[] = [];
  let stop: LoopStop;
  while (true) {
    const step = await loop.next();
    if (step.done) {
      stop = step.value;
      break;
    }
    writer.recordEvent(step.value);
    events.push(step.value);
  }
  writer.close();
  await toolbox.dispose();
  const compactions = events.filter((e): e is CompactionEvent => e.type === "compaction");
  const session = readSession(join(workspace, "sessions", "s1.jsonl"));
  const turns = requests.filter((request) => !isSummaryRequest(request));
  return { state, events, stop, requests, turns, compactions, session };
}

/** A command printing `lines` numbered lines: about 6 characters a line. */
const printLines = (from: number, lines: number) => `seq ${from} ${from + lines - 1}`;

function resultsIn(messages: Message[]): ToolResultBlock[] {
  return messages.flatMap((message) =>
    message.role === "user" && typeof message.content !== "string"
      ? message.content.filter((b): b is ToolResultBlock => b.type === "tool_result")
      : [],
  );
}

describe("compaction", () => {
  it("keeps a long task inside the window by clearing old results, each seen whole once", async () => {
    const commands = Array.from({ length: 30 }, (_, i) => printLines(100_000 + i * 1000, 300));
    const { stop, turns, compactions } = await run(commands, { contextWindow: 8_000 });
    expect(stop.reason).toBe("end_turn");
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions.every((event) => event.kind === "clear")).toBe(true);
    for (const request of turns) expect(tokensOf(request)).toBeLessThanOrEqual(8_000 - 1000);
    // The request after command k carries k's output whole, as its last message.
    for (const [k, command] of commands.entries()) {
      const [last] = resultsIn(turns[k + 1]?.messages.slice(-1) ?? []);
      const first = Number(command.split(" ")[1]);
      expect(last?.content).toContain(`${first}\n`);
      expect(last?.content).toContain(`${first + 299}\n[exit code 0]`);
    }
  });

  it("stubs say what ran, how it ended, how big it was, and where the full result is", async () => {
    const commands = Array.from({ length: 12 }, (_, i) => `${printLines(1, 300)}; exit ${i % 2}`);
    const { turns } = await run(commands, { contextWindow: 8_000 });
    const stubs = resultsIn(turns.at(-1)?.messages ?? []).filter((r) =>
      resultText(r.content).startsWith("[agentloop cleared"),
    );
    expect(stubs.length).toBeGreaterThan(3);
    const stub = stubs[1] as ToolResultBlock;
    expect(stub.content).toMatch(
      /^\[agentloop cleared this result to save context: bash `seq 1 300; exit 1` ended with exit code 1; 1,\d{3} characters, 30\d lines; saved in full to (\S+)\.\]$/,
    );
    const path = resultText(stub.content).match(/saved in full to (\S+)\.\]$/)?.[1] as string;
    expect(readFileSync(path, "utf8")).toMatch(/^1\n2\n3\n[\s\S]*\n300\n\[exit code 1\]$/);
  });

  it("clears in batches, so most requests extend the one before them (the prompt cache keeps working)", async () => {
    const commands = Array.from({ length: 40 }, (_, i) => printLines(i * 1000, 200));
    const { turns, compactions } = await run(commands, { contextWindow: 16_000 });
    let extended = 0;
    for (let k = 1; k < turns.length; k += 1) {
      const before = JSON.stringify((turns[k - 1] as ModelRequest).messages);
      const after = JSON.stringify(
        (turns[k] as ModelRequest).messages.slice(
          0,
          (turns[k - 1] as ModelRequest).messages.length,
        ),
      );
      if (before === after) extended += 1;
    }
    expect(compactions.length).toBeGreaterThan(1);
    expect(compactions.length).toBeLessThan(turns.length / 4);
    expect(extended).toBe(turns.length - 1 - compactions.length);
  });

  it("summarises when clearing is not enough, keeping the first prompt and the latest turns", async () => {
    // Output that stays whole is small; what fills the window is the model's own long text.
    const talkative = Array.from({ length: 10 }, (_, i) => `echo step ${i}`);
    const padding = "I am thinking about this step at length. ".repeat(40);
    let next = 0;
    const respond = (request: ModelRequest): ScriptedReply => {
      if (isSummaryRequest(request))
        return { content: [text("The user wants steps echoed; 0-5 done.")] };
      const command = talkative[next];
      next += 1;
      if (command === undefined) return { content: [text("All done.")] };
      return { content: [text(padding), bash(`toolu_${next}`, command)] };
    };
    const provider = scriptedProvider(Array(40).fill(respond), { countTokens: true });
    const workspace = mkdtempSync(join(tmpdir(), "agentloop-compaction-"));
    const state = createLoopState([{ role: "user", content: FIRST_PROMPT }]);
    const events: LoopEvent[] = [];
    const toolbox = createToolbox([createBashTool({ cwd: workspace })]);
    for await (const event of agentLoop(state, {
      provider,
      toolbox,
      system: "test",
      maxTurns: 50,
      compaction: createCompaction({
        contextWindow: 4_000,
        outputReserve: 500,
        auto: true,
        resultsDirectory: join(workspace, "results"),
      }),
    })) {
      events.push(event);
    }
    await toolbox.dispose();
    const summaries = events.filter(
      (e): e is Extract<CompactionEvent, { kind: "summary" }> =>
        e.type === "compaction" && e.kind === "summary",
    );
    expect(summaries.length).toBeGreaterThan(0);
    const [summary] = summaries as [Extract<CompactionEvent, { kind: "summary" }>];
    expect(summary.summary).toMatch(/^The user wants steps echoed/);
    const head = summary.messages[0] as Message;
    expect(head.role).toBe("user");
    expect(head.content).toEqual([
      { type: "text", text: FIRST_PROMPT },
      { type: "text", text: expect.stringContaining("The user wants steps echoed") },
    ]);
    expect(summary.messages[1]?.role).toBe("assistant");
    // The summary request ended with the instructions and was a valid transcript.
    const summaryRequest = provider.requests.find((messages) => {
      const last = messages.at(-1);
      return typeof last?.content === "string" && last.content.includes("summary");
    });
    expect(prepareForRequest(summaryRequest ?? []).repairs).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "stop", reason: "end_turn" });
    for (const messages of provider.requests) {
      expect(prepareForRequest(messages).repairs).toEqual([]);
    }
  });

  it("learns the window from a 'too long' answer, compacts and retries once with a smaller request", async () => {
    const commands = Array.from({ length: 12 }, (_, i) => printLines(i * 1000, 300));
    const realWindow = 6_000;
    const failWith = (request: ModelRequest) =>
      tokensOf(request) > realWindow
        ? new ProviderError(
            "context_too_long",
            `prompt is too long: ${tokensOf(request)} tokens > ${realWindow} maximum`,
            400,
            realWindow,
          )
        : null;
    const { stop, requests, compactions, events } = await run(commands, {
      contextWindow: 200_000,
      failWith,
    });
    expect(stop.reason).toBe("end_turn");
    const refused = requests.filter((request) => tokensOf(request) > realWindow);
    expect(refused).toHaveLength(1);
    expect(compactions[0]).toMatchObject({ trigger: "too_long", contextWindow: realWindow });
    expect(events).toContainEqual(
      expect.objectContaining({ type: "turn_end", transitionReason: "compact_retry" }),
    );
    // Learnt for the rest of the session: later compactions happen before the window is hit.
    expect(compactions.slice(1).every((event) => event.trigger === "auto")).toBe(true);
  });

  it("says so and stops when the request compacted after a 'too long' answer is refused too", async () => {
    const commands = Array.from({ length: 12 }, (_, i) => printLines(i * 1000, 300));
    // A server whose window is smaller than anything compaction will make, naming none.
    const refused: number[] = [];
    const failWith = (request: ModelRequest) => {
      if (isSummaryRequest(request)) return null;
      if (refused.length === 0 && tokensOf(request) <= 4_000) return null;
      refused.push(tokensOf(request));
      return new ProviderError("context_too_long", "The input exceeds the context window.", 400);
    };
    const { stop, compactions } = await run(commands, { contextWindow: 200_000, failWith });
    expect(stop.reason).toBe("context_too_long");
    expect(stop.detail).toBe(
      "The input exceeds the context window, even after compacting it: start a new session, or use a model with a larger window (--context-window if agentloop has it wrong).",
    );
    expect(compactions.filter((event) => event.trigger === "too_long")).toHaveLength(1);
    // Two refused, and the second was the compacted one, smaller: none was sent again as it was.
    expect(refused).toHaveLength(2);
    expect(refused[1]).toBeLessThan(refused[0] as number);
  });

  it("stops with context_too_long when the refused request cannot be made smaller", async () => {
    const refuse = () =>
      new ProviderError(
        "context_too_long",
        "prompt is too long: 9000 tokens > 1000 maximum",
        400,
        1000,
      );
    const { stop, requests } = await run(["echo hi"], { contextWindow: 200_000, failWith: refuse });
    expect(stop.reason).toBe("context_too_long");
    expect(stop.detail).toMatch(/does not fit the model's context window of 1,000 tokens/);
    expect(requests).toHaveLength(1);
  });

  it("stops with one sentence when a single message is larger than the window", async () => {
    const huge: Message[] = [{ role: "user", content: `Review this:\n${"x = 1\n".repeat(8_000)}` }];
    const { stop, requests } = await run([], { contextWindow: 8_000, history: huge });
    expect(stop.reason).toBe("context_too_long");
    expect(stop.detail).toMatch(
      /^One message alone \(about [\d,]+ tokens\) is larger than the model's context window of 8,000 tokens/,
    );
    expect(requests).toHaveLength(0);
  });

  it("does not compact on its own when automatic compaction is off", async () => {
    const commands = Array.from({ length: 12 }, (_, i) => printLines(i * 1000, 300));
    const { stop, compactions } = await run(commands, { contextWindow: 8_000, auto: false });
    expect(stop.reason).toBe("end_turn");
    expect(compactions).toEqual([]);
  });

  it("the session file keeps every message, and replaying it gives the compacted history", async () => {
    const commands = Array.from({ length: 20 }, (_, i) => printLines(i * 1000, 300));
    const { state, session } = await run(commands, { contextWindow: 8_000 });
    expect(resultsIn(session.messages)).toHaveLength(20);
    expect(
      resultsIn(session.messages).every(
        (r) => !resultText(r.content).startsWith("[agentloop cleared"),
      ),
    ).toBe(true);
    expect(contextFromEntries(session.entries)).toEqual(state.messages);
  });
});

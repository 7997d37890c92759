import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyStubs, STUB_PREFIX } from "../src/compaction/clear-results.js";
import { createCompaction } from "../src/compaction/compaction.js";
import { summaryInstructions } from "../src/compaction/summary.js";
import { ProviderError } from "../src/core/errors.js";
import type { LoopEvent } from "../src/core/events.js";
import {
  type AssistantBlock,
  emptyUsage,
  type Message,
  resultText,
  type StopReason,
  type ToolResultBlock,
} from "../src/core/messages.js";
import { messagesRequestBody } from "../src/providers/anthropic.js";
import { callIdPrefix } from "../src/providers/call-ids.js";
import { toChatMessages, toChatTools } from "../src/providers/openai-request.js";
import type { ModelReply, ModelRequest, Provider, StreamEvent } from "../src/providers/provider.js";
import { type AgentSession, createAgentSession } from "../src/session/agent-session.js";
import { contextFromEntries } from "../src/session/replay.js";
import { openSessionWriter, readSession, type SessionWriter } from "../src/session/session-file.js";
import type { Tool } from "../src/tools/tool.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { prepareForRequest } from "../src/transcript/repair.js";
import { problemWithRequest } from "./support/chat-request-validator.js";
import { checkThinking, signThinking } from "./support/fake-anthropic-thinking.js";
import { validateRequest } from "./support/fake-anthropic-validation.js";
import { sessionToStart } from "./support/plan-runner.js";
import { tokensOf } from "./support/scripted-provider.js";

// Random sessions under compaction: prompts (the first sometimes larger than the window),
// replies with text of any length and 0-3 tool calls printing up to 20,000 characters (some
// failing, some cut off by max_tokens, some pause_turn), summaries that come back empty or
// with a tool call, "too long" refusals from a server with a window of its own and at random
// requests, windows of 2,000-30,000 tokens, automatic compaction on or off, /compact between
// prompts, Ctrl-C during a request, a summary or a tool, crashes mid-prompt or mid-/compact
// and --resume. Whatever happens, every request (summary requests too) must need no repair
// but those the loop causes on purpose, be valid for the Messages API and for Chat
// Completions, start with the first prompt and keep every call beside its result, and send
// no result cleared before the model read it whole; the session file must replay to the
// history in memory and keep every tool result whole, and every cleared result must be saved
// where its stub says. With a model that thinks, every reply starts with a signed thinking
// block, and every request must pass the Messages API's thinking rules as the fake API applies
// them: each block sent back exactly as received, each open tool-use cycle led by its thinking.

const RUNS = 1000;

const MODEL = "claude-test-1";
/** The model of the plans that think. */
const THINKING_MODEL = "claude-sonnet-5";
const TOOL = "probe_output";
const SYSTEM = "You are agentloop under test.";
const SUMMARY_REQUEST = summaryInstructions(undefined);

/** Text as a repeated unit, so a plan shows it short and fast-check shrinks its length. */
interface TextSpec {
  unit: string;
  chars: number;
}

interface CallSpec {
  size: number;
  isError: boolean;
  /** The user presses Ctrl-C while this call runs. */
  interrupt: boolean;
  readOnly: boolean;
}

interface Turn {
  text: TextSpec;
  calls: CallSpec[];
  stop: "natural" | "max_tokens" | "pause_turn";
}

interface SummaryReply {
  text: TextSpec;
  withCall: boolean;
}

type Fate =
  | { kind: "too_long"; window: number | null }
  /** Ctrl-C while the reply streams (or while the summary is written). */
  | { kind: "interrupt" };

type Step =
  /** `crashAfter`: the process dies after that many events of the prompt, then --resume. */
  | { kind: "prompt"; text: string; turns: Turn[]; crashAfter: number | null }
  /** The user's /compact, with or without a focus. */
  | { kind: "compact"; focus: string | null; crashAfter: number | null }
  /** The user quits and starts agentloop again with --resume. */
  | { kind: "resume" };

interface Plan {
  contextWindow: number;
  outputReserve: number;
  auto: boolean;
  maxTurns: number;
  /** A Chat Completions server that sends tool calls without ids. */
  idlessServer: boolean;
  /** The model thinks: every reply starts with a signed thinking block. */
  thinks: boolean;
  /** The window the server enforces, whatever agentloop believes; null for none. */
  server: { window: number; named: boolean } | null;
  /** The first step: the first prompt, with the replies its requests get. */
  first: Extract<Step, { kind: "prompt" }>;
  /** What the n-th request (counting every request of the session) gets instead of a reply. */
  fates: { at: number; fate: Fate }[];
  summaries: SummaryReply[];
  steps: Step[];
}

const FINAL_TURN: Turn = { text: { unit: "Done.", chars: 5 }, calls: [], stop: "natural" };
const DEFAULT_SUMMARY: SummaryReply = {
  text: { unit: "The user asked for work; some of it is done. ", chars: 45 },
  withCall: false,
};

function textOfSpec(spec: TextSpec): string {
  return spec.unit.repeat(Math.ceil(spec.chars / spec.unit.length));
}

function textSpec(maxChars: number): fc.Arbitrary<TextSpec> {
  const unit = fc.oneof(
    fc.string({ minLength: 1, maxLength: 8 }),
    fc.constantFrom("ünïcödé ✓ ", "a line\n", '"quoted" \\ ', "emoji 🙂 ", " ", "\n"),
  );
  return fc.record({ unit, chars: fc.nat({ max: maxChars }) });
}

/** What the tool prints: `size` characters, distinct for every call. */
function outputOf(tag: string, size: number): string {
  const unit = `${tag}: "quoted" ünïcödé \\ tab\t|\n`;
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/** Null `nulls` times out of `nulls + 1`, else a value of `arbitrary`. */
function rarely<T>(arbitrary: fc.Arbitrary<T>, nulls: number): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary: fc.constant(null), weight: nulls }, arbitrary);
}

const plans: fc.Arbitrary<Plan> = (() => {
  const call = fc.record({
    size: fc.oneof(
      { arbitrary: fc.nat({ max: 400 }), weight: 3 },
      { arbitrary: fc.nat({ max: 4_000 }), weight: 2 },
      fc.nat({ max: 20_000 }),
    ),
    isError: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, fc.constant(true)),
    interrupt: fc.oneof({ arbitrary: fc.constant(false), weight: 30 }, fc.constant(true)),
    readOnly: fc.boolean(),
  });
  const turn = fc.record({
    text: fc.oneof(textSpec(60), textSpec(4_000)),
    calls: fc.oneof(
      { arbitrary: fc.array(call, { minLength: 1, maxLength: 3 }), weight: 4 },
      fc.constant<CallSpec[]>([]),
    ),
    stop: fc.oneof(
      { arbitrary: fc.constant("natural" as const), weight: 10 },
      fc.constant("max_tokens" as const),
      fc.constant("pause_turn" as const),
    ),
  });
  const promptText = fc
    .tuple(
      fc.string({ minLength: 1, maxLength: 30 }).filter((text) => text.trim() !== ""),
      fc.oneof({ arbitrary: textSpec(100), weight: 6 }, textSpec(60_000)),
    )
    .map(([head, rest]) => head + textOfSpec(rest));
  const crashAfter = rarely(fc.integer({ min: 1, max: 40 }), 5);
  const prompt = fc.record({
    kind: fc.constant("prompt" as const),
    text: promptText,
    turns: fc.array(turn, { maxLength: 8 }),
    crashAfter,
  });
  const compact = fc.record({
    kind: fc.constant("compact" as const),
    focus: fc.option(fc.constantFrom("the failing tests", "file names"), { freq: 2 }),
    crashAfter: rarely(fc.integer({ min: 1, max: 3 }), 8),
  });
  const resume = fc.constant({ kind: "resume" as const });
  const fate = fc.oneof(
    fc.record({
      kind: fc.constant("too_long" as const),
      window: fc.option(fc.integer({ min: 1_000, max: 30_000 })),
    }),
    fc.constant({ kind: "interrupt" as const }),
  );
  return fc.record({
    contextWindow: fc.integer({ min: 2_000, max: 30_000 }),
    outputReserve: fc.integer({ min: 100, max: 8_192 }),
    auto: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, fc.constant(false)),
    maxTurns: fc.integer({ min: 2, max: 12 }),
    // A Chat Completions server that sends calls without ids: the OpenAI provider names them.
    idlessServer: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, fc.constant(true)),
    thinks: fc.boolean(),
    server: rarely(
      fc.record({ window: fc.integer({ min: 1_500, max: 40_000 }), named: fc.boolean() }),
      2,
    ),
    first: prompt,
    fates: fc.array(fc.record({ at: fc.nat({ max: 50 }), fate }), { maxLength: 5 }),
    summaries: fc.array(
      fc.record({
        text: fc.oneof(
          { arbitrary: textSpec(2_000), weight: 4 },
          fc.constant({ unit: " ", chars: 0 }),
        ),
        withCall: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, fc.constant(true)),
      }),
      { maxLength: 6 },
    ),
    steps: fc.array(
      fc.oneof(
        { arbitrary: prompt, weight: 6 },
        { arbitrary: compact, weight: 2 },
        { arbitrary: resume, weight: 1 },
      ),
      { maxLength: 6 },
    ),
  });
})();

/** What one run saw, for the properties and for the coverage counts. */
interface Observed {
  problems: string[];
  events: LoopEvent[];
  crashes: number;
  resumedWithAnswers: number;
}

function isSummaryRequest(messages: readonly Message[]): boolean {
  const last = messages.at(-1);
  return (
    last?.role === "user" &&
    typeof last.content === "string" &&
    last.content.startsWith(SUMMARY_REQUEST)
  );
}

/** Everything wrong with one request, in words; empty when it is as it should be. */
function checkRequest(request: ModelRequest, firstPrompt: string, thinks: boolean): string[] {
  const problems: string[] = [];
  const raw = request.messages;
  // Repairs: only those the loop causes on purpose. A tool that fails without output leaves
  // an empty error result, and a pause_turn reply is sent back as the final message as it
  // came (trailing whitespace and all); the transcript layer fixes both on the wire.
  const emptyErrors = new Set(
    resultsIn(raw)
      .filter((block) => block.is_error && resultText(block.content).trim() === "")
      .map((block) => block.tool_use_id),
  );
  const { messages: repaired, repairs } = prepareForRequest(raw);
  for (const repair of repairs) {
    const empty = repair.match(/^Gave the empty error result for tool call (\S+) a text\.$/);
    if (empty && emptyErrors.has(empty[1] as string)) continue;
    const trimmed = repair === "Removed trailing whitespace from the final assistant message.";
    if (trimmed && raw.at(-1)?.role === "assistant") continue;
    problems.push(`needed a repair: ${repair}`);
  }
  const model = thinks ? THINKING_MODEL : MODEL;
  const body = JSON.parse(JSON.stringify(messagesRequestBody(request, { model })));
  const anthropic = validateRequest(body) ?? checkThinking(body);
  if (anthropic) problems.push(`Messages API: ${anthropic}`);
  if (thinks) {
    // The model's own thinking is all sent, so no request needs thinking turned off for it.
    const sent = countThinking(body.messages);
    const held = countThinking(raw);
    if (sent !== held) problems.push(`sent ${sent} of the ${held} thinking blocks it holds`);
    if (body.thinking !== undefined)
      problems.push(`thinking was set to ${JSON.stringify(body.thinking)}`);
  }
  const chat = problemWithRequest(
    JSON.parse(
      JSON.stringify({
        model: MODEL,
        messages: toChatMessages(request.system, repaired),
        tools: toChatTools(request.tools),
        stream: true,
      }),
    ),
  );
  if (chat) problems.push(`Chat Completions: ${chat}`);
  const first = repaired[0];
  const firstText =
    first?.role !== "user"
      ? undefined
      : typeof first.content === "string"
        ? first.content
        : first.content[0]?.type === "text"
          ? first.content[0].text
          : undefined;
  if (firstText !== firstPrompt) {
    problems.push(
      `the first message does not start with the first prompt: ${JSON.stringify(first).slice(0, 300)}`,
    );
  }
  // Every call is answered in the very next message, in the history itself.
  for (const [index, message] of raw.entries()) {
    if (message.role !== "assistant") continue;
    const next = raw[index + 1];
    const answered = new Set(next ? resultsIn([next]).map((block) => block.tool_use_id) : []);
    for (const block of message.content) {
      if (block.type === "tool_use" && !answered.has(block.id)) {
        problems.push(`tool call ${block.id} (message ${index}) is not answered by the next one`);
      }
    }
  }
  return problems;
}

function countThinking(messages: readonly { content: unknown }[]): number {
  return messages
    .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
    .filter((block) => block.type === "thinking").length;
}

function resultsIn(messages: readonly Message[]): ToolResultBlock[] {
  return messages.flatMap((message) =>
    message.role === "user" && typeof message.content !== "string"
      ? message.content.filter((block): block is ToolResultBlock => block.type === "tool_result")
      : [],
  );
}

/** The model and the server: checks every request, then answers it as the plan says. */
function createWorld(plan: Plan, observed: Observed, interrupt: () => void) {
  let requestCount = 0;
  let nextId = 1;
  let turns: Turn[] = [];
  const summaries = [...plan.summaries];
  const fates = new Map(plan.fates.map(({ at, fate }) => [at, fate]));
  const seenWhole = new Set<string>();
  // Each call's output is tagged, so every result in a session is different.
  let nextTag = 1;
  const tag = () => `run_${String(nextTag++).padStart(3, "0")}`;
  // The Anthropic API gives every call a unique id. Chat Completions servers that send none
  // get one from the OpenAI provider, made of the history's length and the call's position
  // (src/providers/openai.ts and openai-reply.ts `finishReply`).
  const callId = (request: ModelRequest, position: number) =>
    plan.idlessServer
      ? `${callIdPrefix(request.messages)}_${position}`
      : `toolu_${String(nextId++).padStart(3, "0")}`;

  const provider: Provider = {
    name: "anthropic",
    model: MODEL,
    async *stream(request): AsyncGenerator<StreamEvent, ModelReply> {
      const index = requestCount++;
      const summary = isSummaryRequest(request.messages);
      const problems = checkRequest(request, plan.first.text, plan.thinks);
      // A result is cleared only once the model has read it whole, also when its turn was cut
      // short before the model answered (Ctrl-C, a crash) and a new prompt followed.
      for (const message of request.messages) {
        for (const block of resultsIn([message])) {
          const id = block.tool_use_id;
          if (!resultText(block.content).startsWith(STUB_PREFIX)) seenWhole.add(id);
          else if (!seenWhole.has(id)) {
            problems.push(`the result of ${id} was cleared before the model saw it`);
          }
        }
      }
      for (const problem of problems) {
        observed.problems.push(`request ${index + 1}${summary ? " (summary)" : ""}: ${problem}`);
      }
      request.signal.throwIfAborted();
      const tokens = tokensOf(request);
      if (plan.server && tokens > plan.server.window) {
        const { window, named } = plan.server;
        throw new ProviderError(
          "context_too_long",
          `prompt is too long: ${tokens} tokens > ${window} maximum`,
          400,
          named ? window : undefined,
        );
      }
      const fate = fates.get(index);
      if (fate?.kind === "too_long") {
        throw new ProviderError(
          "context_too_long",
          "The request is too long for the model's context window.",
          400,
          fate.window ?? undefined,
        );
      }
      if (fate?.kind === "interrupt") {
        yield { type: "text_delta", text: "Half an ans" };
        interrupt();
        request.signal.throwIfAborted();
      }
      const content: AssistantBlock[] = [];
      let stopReason: StopReason;
      if (summary) {
        const reply = summaries.shift() ?? DEFAULT_SUMMARY;
        const text = textOfSpec(reply.text);
        if (text.trim()) content.push({ type: "text", text });
        if (reply.withCall) {
          const id = callId(request, 0);
          content.push({ type: "tool_use", id, name: TOOL, input: { tag: tag(), size: 10 } });
        }
        stopReason = reply.withCall ? "tool_use" : "end_turn";
      } else {
        const turn = turns.shift() ?? FINAL_TURN;
        const text = textOfSpec(turn.text);
        // Providers drop empty text, and never return a reply with nothing in it.
        if (text.trim()) content.push({ type: "text", text });
        for (const [position, call] of turn.calls.entries()) {
          const id = callId(request, position);
          content.push({ type: "tool_use", id, name: TOOL, input: { tag: tag(), ...call } });
        }
        if (content.length === 0) content.push({ type: "text", text: "Done." });
        stopReason =
          turn.calls.length > 0
            ? turn.stop === "max_tokens"
              ? "max_tokens"
              : "tool_use"
            : turn.stop === "natural"
              ? "end_turn"
              : turn.stop;
      }
      for (const block of content) {
        if (block.type === "text") yield { type: "text_delta", text: block.text };
      }
      if (plan.thinks) {
        const thought = `Thinking before reply ${index + 1}.`;
        const signature = signThinking(THINKING_MODEL, thought);
        content.unshift({ type: "thinking", thinking: thought, signature });
      }
      return {
        message: { role: "assistant", content, ...(plan.thinks && { model: THINKING_MODEL }) },
        stopReason,
        rawStopReason: stopReason,
        usage: { ...emptyUsage(), input_tokens: tokens, output_tokens: 20 },
      };
    },
  };

  const tool: Tool = {
    name: TOOL,
    description: "Prints as much as its input says.",
    inputSchema: {
      type: "object",
      properties: {
        tag: { type: "string" },
        size: { type: "integer" },
        isError: { type: "boolean" },
        interrupt: { type: "boolean" },
        readOnly: { type: "boolean" },
      },
      required: ["tag", "size"],
    },
    isReadOnly: (input) => input.readOnly === true,
    async run(input) {
      const output = outputOf(input.tag as string, input.size as number);
      if (input.interrupt === true) {
        interrupt();
        return { content: `${output}\n[interrupted by the user]`, isError: true };
      }
      return { content: output, isError: input.isError === true };
    },
  };

  return {
    provider,
    tool,
    /** The replies for the requests of the next prompt. */
    expectTurns: (next: Turn[]) => {
      turns = [...next];
    },
  };
}

interface Agent {
  session: AgentSession;
  writer: SessionWriter;
}

async function runPlan(plan: Plan, observed: Observed): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-compaction-property-"));
  let keyboard = new AbortController();
  const world = createWorld(plan, observed, () => keyboard.abort());
  /** Every tool result the runs produced and recorded, by call id. */
  const produced = new Map<string, string>();
  /** Results of the running turn not yet recorded: a crash loses them with the process. */
  let pending = new Map<string, string>();

  const start = (resumeId?: string): Agent => {
    const { header, messages, added, problems } = sessionToStart(directory, resumeId);
    if (problems.length > 0) observed.problems.push(`resume: ${JSON.stringify(problems)}`);
    if (added.length > 0) observed.resumedWithAnswers += 1;
    const writer = openSessionWriter(directory, header, { resume: resumeId !== undefined });
    for (const message of added) writer.recordMessage(message);
    for (const block of resultsIn(added))
      produced.set(block.tool_use_id, resultText(block.content));
    const session = createAgentSession({
      provider: world.provider,
      toolbox: createToolbox([world.tool]),
      system: SYSTEM,
      maxTurns: plan.maxTurns,
      writer,
      messages,
      compaction: createCompaction({
        contextWindow: plan.contextWindow,
        outputReserve: plan.outputReserve,
        auto: plan.auto,
        resultsDirectory: join(directory, header.id, "tool-results"),
      }),
    });
    return { session, writer };
  };

  /** Runs events to their end, or dies after `crashAfter` of them. True when it died. */
  const play = async <Result>(
    events: AsyncGenerator<LoopEvent, Result>,
    crashAfter: number | null,
  ): Promise<boolean> => {
    for (let count = 1; ; count += 1) {
      const next = await events.next();
      if (next.done) return false;
      const event = next.value;
      observed.events.push(event);
      if (event.type === "tool_end") pending.set(event.call.id, resultText(event.result.content));
      if (event.type === "tool_results") {
        // The turn's results, each as its tool returned it, all of them, in one message.
        const results = resultsIn([event.message]);
        const ids = results.map((block) => block.tool_use_id);
        if (
          ids.length !== pending.size ||
          results.some((b) => pending.get(b.tool_use_id) !== b.content)
        ) {
          observed.problems.push(
            `the results recorded for ${ids.join(", ")} are not those produced`,
          );
        }
        for (const [id, content] of pending) produced.set(id, content);
        pending = new Map();
      }
      if (count === crashAfter) return true;
    }
  };

  const checkFile = (agent: Agent, when: string) => {
    const file = readSession(agent.writer.path);
    if (file.problems.length > 0) {
      observed.problems.push(`${when}: unreadable lines ${JSON.stringify(file.problems)}`);
    }
    const replayed = JSON.stringify(contextFromEntries(file.entries));
    if (replayed !== JSON.stringify(agent.session.state.messages)) {
      observed.problems.push(`${when}: the session file does not replay to the history`);
    }
  };

  let agent: Agent | undefined = start();
  try {
    const steps: Step[] = [plan.first, ...plan.steps];
    for (const [index, step] of steps.entries()) {
      const { session, writer } = agent;
      if (step.kind === "resume") {
        agent = undefined;
        await session.close();
        agent = start(session.id);
        checkFile(agent, `after resume at step ${index}`);
        continue;
      }
      keyboard = new AbortController();
      let crashed: boolean;
      if (step.kind === "prompt") {
        world.expectTurns(step.turns);
        crashed = await play(session.runPrompt(step.text, keyboard.signal), step.crashAfter);
      } else {
        crashed = await play(
          session.compact(step.focus ?? undefined, keyboard.signal),
          step.crashAfter,
        );
      }
      if (!crashed && pending.size > 0) {
        observed.problems.push(`step ${index}: results ${[...pending.keys()]} were not recorded`);
      }
      pending = new Map();
      if (crashed) {
        observed.crashes += 1;
        agent = undefined;
        keyboard.abort();
        writer.close();
        agent = start(session.id);
      }
      checkFile(agent, `after step ${index}`);
    }
    checkEnd(agent, produced, observed);
  } finally {
    await agent?.session.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Nothing is lost: the file keeps every result whole, and every cleared one is saved. */
function checkEnd(agent: Agent, produced: Map<string, string>, observed: Observed): void {
  const file = readSession(agent.writer.path);
  const inFile = new Map<string, string>();
  for (const block of resultsIn(file.messages)) {
    if (inFile.has(block.tool_use_id)) {
      observed.problems.push(`the file has two results for ${block.tool_use_id}`);
    }
    inFile.set(block.tool_use_id, resultText(block.content));
  }
  for (const [id, content] of produced) {
    const kept = inFile.get(id);
    if (kept !== content) {
      const how = kept === undefined ? "missing from" : "not whole in";
      observed.problems.push(`the result of ${id} (${content.length} chars) is ${how} the file`);
    }
  }
  // Replays the file, comparing each cleared result with the file its stub names.
  let context: Message[] = [];
  for (const entry of file.entries) {
    if (entry.type === "message") context.push(entry.message);
    if (entry.type !== "compaction") continue;
    if (entry.kind === "summary") {
      context = [...entry.messages];
      continue;
    }
    for (const { tool_use_id: id, stub } of entry.cleared) {
      const path = stub.match(/saved in full to (\S+)\.\]$/)?.[1];
      const originals = resultsIn(context).filter(
        (block) => block.tool_use_id === id && !resultText(block.content).startsWith(STUB_PREFIX),
      );
      if (!stub.startsWith(STUB_PREFIX) || path === undefined) {
        observed.problems.push(`the stub of ${id} names no file: ${stub}`);
      } else if (originals.length !== 1) {
        observed.problems.push(`${originals.length} results with id ${id} when it was cleared`);
      } else if (readIfThere(path) !== originals[0]?.content) {
        observed.problems.push(`the file ${path} does not hold the result of ${id}`);
      }
    }
    context = applyStubs(context, entry.cleared);
  }
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

describe("compaction under random sessions", () => {
  it("keeps every request valid for both APIs and starting with the first prompt, and loses nothing", async () => {
    const seen = {
      clear: 0,
      auto: 0,
      too_long: 0,
      manual: 0,
      interrupted: 0,
      context_too_long: 0,
      crashes: 0,
      resumedWithAnswers: 0,
    };
    await fc.assert(
      fc.asyncProperty(plans, async (plan) => {
        const observed: Observed = {
          problems: [],
          events: [],
          crashes: 0,
          resumedWithAnswers: 0,
        };
        await runPlan(plan, observed);
        expect(observed.problems).toEqual([]);
        seen.crashes += observed.crashes;
        seen.resumedWithAnswers += observed.resumedWithAnswers;
        for (const event of observed.events) {
          if (event.type === "compaction")
            seen[event.kind === "clear" ? "clear" : event.trigger] += 1;
          if (event.type === "stop" && event.reason in seen)
            seen[event.reason as "interrupted"] += 1;
        }
      }),
      { numRuns: RUNS },
    );
    // The plans reach every case: no count may stay at zero.
    expect(Object.entries(seen).filter(([, count]) => count === 0)).toEqual([]);
  }, 120_000);
});

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderError, type ProviderErrorKind } from "../src/core/errors.js";
import { type AssistantBlock, emptyUsage, type StopReason } from "../src/core/messages.js";
import { createAnthropicProvider, messagesRequestBody } from "../src/providers/anthropic.js";
import type { ModelReply, Provider, StreamEvent } from "../src/providers/provider.js";
import {
  type FakeAnthropic,
  type FakeBlock,
  type FakeTurn,
  httpError,
  overloaded,
  startFakeAnthropic,
} from "./support/fake-anthropic-server.js";
import { validateRequest } from "./support/fake-anthropic-validation.js";
import { MODEL, type ModelWorld, runPlan } from "./support/plan-runner.js";
import {
  type Fault,
  FINAL_TURN,
  INTERRUPT_MARKER,
  type ModelTurn,
  type PlannedBlock,
  type PlannedStop,
  type SessionPlan,
  sessionPlans,
} from "./support/session-plan.js";

// Random sessions: model replies with any stop reason, tool calls that succeed, fail, throw,
// run slowly or get Ctrl-C, unknown tools and malformed input, repeated and reused ids, API
// faults, interrupts and crashes at any event, then more prompts and --resume. Whatever
// happens, every request must be one the API accepts, and the session file must always hold
// exactly the history in memory.

const IN_PROCESS_RUNS = 3_000;
const HTTP_RUNS = 80;
/** Thousands of sessions are CPU work: the default 30 s is too little when tests run side by side. */
const PROPERTY_TIMEOUT = 120_000;

describe("the loop under random replies, faults, interrupts and crashes", () => {
  it(
    "sends only valid requests and keeps the session file equal to the history (in process)",
    async () => {
      await fc.assert(
        fc.asyncProperty(sessionPlans({ objectsOnly: false }), async (plan) => {
          const { world, rejected } = scriptedWorld();
          await runPlan(plan, world);
          expect(rejected).toEqual([]);
        }),
        { numRuns: IN_PROCESS_RUNS },
      );
    },
    PROPERTY_TIMEOUT,
  );

  describe("through the SDK against the fake Messages API", () => {
    let fake: FakeAnthropic;
    beforeAll(async () => {
      fake = await startFakeAnthropic();
    });
    afterAll(() => fake.close());

    it(
      "sends only valid requests and keeps the session file equal to the history",
      async () => {
        await fc.assert(
          fc.asyncProperty(sessionPlans({ objectsOnly: true }), async (plan) => {
            const first = fake.requests.length;
            await runPlan(plan, fakeServerWorld(fake, plan));
            const rejected = fake.requests
              .slice(first)
              .map((request) => validateRequest(request.body))
              .filter((problem) => problem !== null);
            expect(rejected).toEqual([]);
          }),
          { numRuns: HTTP_RUNS },
        );
      },
      PROPERTY_TIMEOUT,
    );
  });
});

/**
 * A model in the test process. Before answering, it builds the exact body the Anthropic
 * provider would send and runs the fake server's validator on it, answering an invalid one
 * with the 400 the API would give.
 */
function scriptedWorld(): { world: ModelWorld; rejected: string[] } {
  const rejected: string[] = [];
  let pending: ModelTurn[] = [];
  const provider = (onRepair: (description: string) => void): Provider => ({
    name: "anthropic",
    model: MODEL,
    async *stream(request) {
      const body = messagesRequestBody(request, { model: MODEL, onRepair });
      const problem = validateRequest(JSON.parse(JSON.stringify(body)));
      if (problem) {
        rejected.push(problem);
        throw new ProviderError("invalid_request", problem, 400);
      }
      request.signal.throwIfAborted();
      return yield* answer(pending.shift() ?? FINAL_TURN, request.signal);
    },
  });
  const world: ModelWorld = {
    provider,
    expectTurns: (turns) => {
      pending = [...turns];
    },
  };
  return { world, rejected };
}

async function* answer(
  turn: ModelTurn,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent, ModelReply> {
  switch (turn.kind) {
    case "reply":
      for (const block of turn.blocks) {
        if (block.type !== "text" || !block.text) continue;
        yield { type: "text_delta", text: block.text };
        signal.throwIfAborted();
      }
      return {
        message: { role: "assistant", content: turn.blocks.map(assistantBlock) },
        stopReason: stopReasonOf(turn.stopReason),
        rawStopReason: turn.stopReason,
        usage: { ...emptyUsage(), input_tokens: 10, output_tokens: 5 },
      };
    case "fault": {
      if (turn.partialText) {
        yield { type: "text_delta", text: turn.partialText };
        signal.throwIfAborted();
      }
      const { kind, status } = faultErrors[turn.fault];
      throw new ProviderError(kind, `The request failed (${turn.fault}).`, status);
    }
    case "interrupt":
      yield { type: "text_delta", text: INTERRUPT_MARKER };
      await new Promise((resolve) => {
        if (signal.aborted) resolve(undefined);
        else signal.addEventListener("abort", resolve, { once: true });
      });
      throw signal.reason;
  }
}

/** The error the Anthropic provider ends with when a fault outlasts its retries. */
const faultErrors: Record<Fault, { kind: ProviderErrorKind; status?: number }> = {
  rate_limited: { kind: "rate_limited", status: 429 },
  overloaded: { kind: "server", status: 529 },
  server_error: { kind: "server", status: 500 },
  prompt_too_long: { kind: "context_too_long", status: 400 },
  unauthorized: { kind: "authentication", status: 401 },
  stall: { kind: "stream_stalled" },
  reset: { kind: "unreachable" },
  sse_error: { kind: "server" },
};

function assistantBlock(block: PlannedBlock): AssistantBlock {
  if (block.type === "text") return { type: "text", text: block.text };
  return { type: "tool_use", id: block.id, name: block.name, input: block.input };
}

function stopReasonOf(planned: PlannedStop): StopReason {
  return planned === "model_context_window_exceeded" ? "unknown" : planned;
}

/** The real provider, through the SDK, against the fake server with tiny retry waits. */
function fakeServerWorld(fake: FakeAnthropic, plan: SessionPlan): ModelWorld {
  const stalls = plan.steps.some(
    (step) =>
      step.kind === "prompt" &&
      step.turns.some((turn) => turn.kind === "fault" && turn.fault === "stall"),
  );
  return {
    provider: (onRepair) =>
      createAnthropicProvider({
        apiKey: "test-key",
        baseURL: fake.url,
        model: MODEL,
        onRepair,
        retryPolicy: {
          maxAttempts: 3,
          initialDelayMs: 1,
          maxDelayMs: 4,
          // Only plans that stall wait for the idle timeout; a loaded machine can be slow.
          idleTimeoutMs: stalls ? 300 : 5_000,
        },
      }),
    expectTurns: (turns) => fake.script([...turns, FINAL_TURN].map(fakeTurn)),
  };
}

function fakeTurn(turn: ModelTurn): FakeTurn {
  switch (turn.kind) {
    case "reply": {
      const cut = turn.stopReason === "max_tokens";
      const content = turn.blocks.map((block, index): FakeBlock => {
        if (block.type === "text") return { type: "text", text: block.text };
        const { id, name } = block;
        const json = JSON.stringify(block.input);
        if (cut && index === turn.blocks.length - 1) {
          return { type: "tool_use", id, name, partialJson: json.slice(0, turn.cutJsonAt) };
        }
        return { type: "tool_use", id, name, input: block.input as Record<string, unknown> };
      });
      return { kind: "reply", content, stopReason: turn.stopReason };
    }
    case "fault":
      return fakeFault(turn.fault, turn.partialText || "Half an answer");
    case "interrupt":
      // Four pieces of the marker; the stream stops after two until the user's Ctrl-C.
      return { kind: "stall", content: [{ type: "text", text: INTERRUPT_MARKER.repeat(4) }] };
  }
}

function fakeFault(fault: Fault, partialText: string): FakeTurn {
  const content: FakeBlock[] = [{ type: "text", text: partialText }];
  switch (fault) {
    case "rate_limited":
      return httpError(429, "rate_limit_error", "Rate limited.", { "retry-after-ms": "1" });
    case "overloaded":
      return overloaded();
    case "server_error":
      return httpError(500, "api_error", "Internal server error");
    case "prompt_too_long":
      return httpError(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000");
    case "unauthorized":
      return httpError(401, "authentication_error", "invalid x-api-key");
    case "stall":
      return { kind: "stall", content };
    case "reset":
      return { kind: "reset", content };
    case "sse_error":
      return { kind: "sse_error", content, errorType: "overloaded_error", message: "Overloaded" };
  }
}

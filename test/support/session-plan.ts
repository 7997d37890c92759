// Random sessions for property tests: what the user types, what the model (or the API in its
// way) answers to each request, where the user presses Ctrl-C, where the process dies, and
// when the session is resumed. A plan is plain data, so fast-check can print and shrink it.

import fc from "fast-check";
import { PROBE, type ProbeOutcome } from "./probe-tool.js";

export interface PlannedText {
  type: "text";
  text: string;
}

export interface PlannedCall {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
  /** Reuses the id of the model's previous call, as a buggy provider might. */
  reuseId: boolean;
}

export type PlannedBlock = PlannedText | PlannedCall;

/** The stop reasons the API sends, plus one agentloop does not know. */
export type PlannedStop =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "pause_turn"
  | "refusal"
  | "stop_sequence"
  | "model_context_window_exceeded";

/** Ways a request fails, named after what the API does. */
export type Fault =
  | "rate_limited"
  | "overloaded"
  | "server_error"
  | "prompt_too_long"
  | "unauthorized"
  | "stall"
  | "reset"
  | "sse_error";

/** What one request gets. */
export type ModelTurn =
  | {
      kind: "reply";
      blocks: PlannedBlock[];
      stopReason: PlannedStop;
      /** Over HTTP with max_tokens, how many characters of the last call's JSON arrive. */
      cutJsonAt: number;
    }
  | { kind: "fault"; fault: Fault; partialText: string }
  /** The reply starts streaming and the user presses Ctrl-C before it ends. */
  | { kind: "interrupt" };

/** The run stops consuming events after the `afterEvent`-th one of the prompt. */
export interface Cut {
  afterEvent: number;
  /**
   * interrupt: Ctrl-C. crash: the process dies and the session is resumed from its file.
   * torn_write: it dies half-way through writing a line, which is left cut off in the file.
   */
  how: "interrupt" | "crash" | "torn_write";
}

export type Step =
  | { kind: "prompt"; text: string; turns: ModelTurn[]; cut: Cut | null }
  /** The user quits and starts agentloop again with --resume. */
  | { kind: "resume" };

export interface SessionPlan {
  /** --max-turns, for every process of the session. */
  maxTurns: number;
  steps: Step[];
}

/** Streamed first in every interrupt turn; the user presses Ctrl-C on seeing it. */
export const INTERRUPT_MARKER = "[[ctrl-c]]";

/** What the model says once a prompt's planned turns are used up. */
export const FINAL_TURN: ModelTurn = {
  kind: "reply",
  blocks: [{ type: "text", text: "Done." }],
  stopReason: "end_turn",
  cutJsonAt: 0,
};

const outcomes: ProbeOutcome[] = [
  "ok",
  "empty_ok",
  "error",
  "empty_error",
  "throws",
  "slow",
  "interrupt",
];

/**
 * Tool inputs as a model sends them. Over the Anthropic API the input is always a JSON
 * object; other providers can hand over the raw text of arguments that are not JSON.
 */
function toolInput(objectsOnly: boolean) {
  const valid = fc.record(
    { outcome: fc.constantFrom(...outcomes), readOnly: fc.boolean() },
    { requiredKeys: ["outcome"] },
  );
  const malformedObject = fc.constantFrom<unknown>({}, { readOnly: true }, { outcome: 7 });
  const notAnObject = fc.constantFrom<unknown>("run the probe", ["ok"], null, 42);
  return fc.oneof(
    { arbitrary: valid, weight: 8 },
    { arbitrary: malformedObject, weight: 1 },
    { arbitrary: objectsOnly ? malformedObject : notAnObject, weight: 1 },
  );
}

function modelTurns(objectsOnly: boolean): fc.Arbitrary<ModelTurn[]> {
  const text = fc
    .constantFrom("Let me look.", "Done.", "", " ", "Working on it \n", "ünïcödé ✓")
    .map((value): PlannedText => ({ type: "text", text: value }));
  const call = fc.record({
    type: fc.constant("tool_use" as const),
    id: fc.constant(""),
    name: fc.oneof({ arbitrary: fc.constant(PROBE), weight: 6 }, fc.constant("no_such_tool")),
    input: toolInput(objectsOnly),
    reuseId: fc.oneof({ arbitrary: fc.constant(false), weight: 15 }, fc.constant(true)),
  });
  const reply = fc.record({
    kind: fc.constant("reply" as const),
    blocks: fc.array(fc.oneof(text, call, call), { minLength: 1, maxLength: 4 }),
    stopReason: fc.constantFrom<PlannedStop>(
      "end_turn",
      "tool_use",
      "tool_use",
      "tool_use",
      "max_tokens",
      "pause_turn",
      "refusal",
      "stop_sequence",
      "model_context_window_exceeded",
    ),
    cutJsonAt: fc.nat({ max: 40 }),
  });
  // A stubborn model sends the very same calls several times: the repeated-call guard's case.
  const times = fc.oneof({ arbitrary: fc.constant(1), weight: 8 }, fc.integer({ min: 3, max: 6 }));
  const repeated = fc
    .tuple(reply, times)
    .map(([turn, count]) => Array.from({ length: count }, (): ModelTurn => turn));
  const fault = fc.record({
    kind: fc.constant("fault" as const),
    fault: fc.constantFrom<Fault>(
      "rate_limited",
      "overloaded",
      "server_error",
      "prompt_too_long",
      "unauthorized",
      "stall",
      "reset",
      "sse_error",
    ),
    partialText: fc.constantFrom("", "Half an ans"),
  });
  const interrupt = fc.constant<ModelTurn>({ kind: "interrupt" });
  return fc.oneof(
    { arbitrary: repeated, weight: 8 },
    { arbitrary: fault.map((turn): ModelTurn[] => [turn]), weight: 2 },
    { arbitrary: interrupt.map((turn) => [turn]), weight: 1 },
  );
}

const prompt = (objectsOnly: boolean): fc.Arbitrary<Step> =>
  fc.record({
    kind: fc.constant("prompt" as const),
    text: fc.constantFrom("fix the bug", "go on", "  and then?  ", "what happened?"),
    turns: fc.array(modelTurns(objectsOnly), { maxLength: 5 }).map((turns) => turns.flat()),
    cut: fc.option<Cut>(
      fc.record({
        afterEvent: fc.integer({ min: 1, max: 40 }),
        how: fc.constantFrom<Cut["how"]>("interrupt", "interrupt", "crash", "torn_write"),
      }),
      { freq: 2 },
    ),
  });

/**
 * Random sessions. `objectsOnly` keeps tool inputs to JSON objects, as the Anthropic API
 * sends them; otherwise inputs may be any JSON, as from providers that pass on raw text.
 */
export function sessionPlans(options: { objectsOnly: boolean }): fc.Arbitrary<SessionPlan> {
  const resume = fc.constant<Step>({ kind: "resume" });
  const step = fc.oneof({ arbitrary: prompt(options.objectsOnly), weight: 5 }, resume);
  return fc.record({
    maxTurns: fc.integer({ min: 1, max: 8 }),
    steps: fc.array(step, { minLength: 1, maxLength: 5 }).map(withIds),
  });
}

/** Gives every call an id, fresh unless it reuses the model's previous one. */
function withIds(steps: Step[]): Step[] {
  let count = 0;
  let previous: string | undefined;
  const named = (block: PlannedBlock): PlannedBlock => {
    if (block.type === "text") return block;
    count += 1;
    const id = block.reuseId && previous ? previous : `toolu_${String(count).padStart(3, "0")}`;
    previous = id;
    return { ...block, id };
  };
  return steps.map((step) => {
    if (step.kind === "resume") return step;
    const turns = step.turns.map((turn) =>
      turn.kind === "reply" ? { ...turn, blocks: turn.blocks.map(named) } : turn,
    );
    return { ...step, turns };
  });
}

// What an attempt's agent process came to, read from what it printed: the stream-json events
// as they arrive (turns, usage, live cost), its final result line, and how it exited. The
// outcome decides a task's status: success, failed (the agent did not get there), error (the
// attempt broke, with a kind saying whether trying again could help), timeout or cancelled.

import type { RunResult } from "../command-line/headless.js";
import { dollarsBeyondTokens, type LoopEvent, requestModel, requestUsage } from "../core/events.js";
import { addUsage, emptyUsage, type Usage } from "../core/messages.js";
import { SANDBOX_CANNOT_START } from "../sandbox/sandbox.js";
import { costOf } from "../session/cost.js";
import type { GroupRun } from "./group-process.js";
import type { TaskErrorKind, TaskResult, TaskStatus } from "./task-result.js";

export interface Outcome {
  status: TaskStatus;
  exitCode: number | null;
  error: TaskResult["error"];
}

/** What the agent reported as it ran; the result line, once it arrives, is the final word. */
export interface Facts {
  turns: number;
  usage: Usage;
  cost: number | null;
  result: RunResult | undefined;
}

export function emptyFacts(): Facts {
  return { turns: 0, usage: emptyUsage(), cost: null, result: undefined };
}

/** Reads one stream-json line into `facts`; returns the attempt's cost when it changed. */
export function takeLine(line: string, facts: Facts, model: string): number | null {
  let event: LoopEvent | RunResult;
  try {
    event = JSON.parse(line);
  } catch {
    return null;
  }
  if (event.type === "result") {
    facts.result = event;
    return event.total_cost_usd;
  }
  // As the session counts it: each request at its own model's price (a price can depend on the
  // request's length), and what a part's event cost beyond tokens (a web search).
  const used = requestUsage(event);
  const beyond = dollarsBeyondTokens(event);
  if (!used && beyond === 0) return null;
  let dollars: number | null = beyond;
  if (used) {
    facts.turns += 1;
    facts.usage = addUsage(facts.usage, used);
    const priced = costOf(requestModel(event) ?? model, used);
    dollars = priced === null ? null : priced + beyond;
  }
  facts.cost = dollars === null ? null : (facts.cost ?? 0) + dollars;
  return facts.cost;
}

export function stoppedOutcome(run: GroupRun): Outcome {
  if (run.stopped === "timeout") {
    return {
      status: "timeout",
      exitCode: run.exitCode,
      error: null,
    };
  }
  return { status: "cancelled", exitCode: run.exitCode, error: null };
}

/** Success, an agent that did not get there (failed), or a run that broke (error). */
export function agentOutcome(
  run: GroupRun,
  result: RunResult | undefined,
  /** The agent's stderr, read only for an agent that could not start. */
  readStderr: () => string,
): Outcome {
  const exitCode = run.exitCode;
  if (!result) {
    const kind: TaskErrorKind =
      exitCode !== 2
        ? "worker_died"
        : readStderr().includes(SANDBOX_CANNOT_START)
          ? "sandbox"
          : "config";
    const message = `the agent ended with ${describeEnd(run)} and no result; see its stderr log`;
    return { status: "error", exitCode, error: { kind, message } };
  }
  if (result.subtype === "success") return { status: "success", exitCode, error: null };
  const message = result.error ?? result.stop_reason;
  switch (result.stop_reason) {
    case "error":
      return { status: "error", exitCode, error: { kind: kindOf(result), message } };
    case "interrupted":
      // Nobody here stopped it: something outside ended the agent.
      return { status: "error", exitCode, error: { kind: "worker_died", message } };
    default:
      return { status: "failed", exitCode, error: null };
  }
}

function kindOf(result: RunResult): TaskErrorKind {
  switch (result.error_kind) {
    case "rate_limited":
    case "server":
    case "stream_stalled":
    case "empty_reply":
      return "retries_exhausted";
    case "authentication":
    case "model_not_found":
    case "unreachable":
    case "config":
      return "config";
    default:
      return "agent";
  }
}

export function describeEnd(run: GroupRun): string {
  return run.signal ? `signal ${run.signal}` : `code ${run.exitCode}`;
}

// What the goal part says: to the model (beside a prompt, when sending it on, after a
// compaction) and to the person (each event's line, /goal's status).

import type { PartEvent } from "../core/events.js";
import type { Usage } from "../core/messages.js";
import type { Verdict } from "./verdict.js";

export const GOAL_PART = "goal";

/** Told to the model beside the first prompt after a goal is set. */
export function goalNote(condition: string): string {
  return [
    `[agentloop: goal] The user set a goal for this session: ${condition}`,
    "Whenever you finish an answer, a separate judge reads the recent conversation and decides whether the goal holds; until it does, you are sent back to work. The judge cannot run commands or read files: show the evidence (run the checks) in the conversation.",
  ].join("\n");
}

/** The message the model is sent on with when the judge finds the goal not met. */
export function continuation(condition: string, reason: string): string {
  return [
    "[agentloop: goal] The goal is not met yet.",
    `Goal: ${condition}`,
    `The judge's reason: ${reason}`,
    "Go on working toward the goal; it is checked again when you next finish.",
  ].join("\n");
}

/** Sent after background tasks ended while the model had finished: their notices come before it. */
export function afterTasks(condition: string): string {
  return `[agentloop: goal] Background tasks ended before the goal was checked; their results are above. Go on toward the goal: ${condition}`;
}

export function restatedGoal(condition: string): string {
  return `[agentloop: goal] The session's goal, still to be met: ${condition}`;
}

export function goalSet(condition: string): PartEvent {
  return {
    type: "part",
    part: GOAL_PART,
    name: "goal_set",
    line: `goal set: ${condition}`,
    data: { condition },
  };
}

/** `by`: the person (/goal clear), or the judge's verdict. */
export function goalCleared(condition: string, by: "user" | "met" | "impossible"): PartEvent {
  const line =
    by === "user"
      ? "goal cleared"
      : `goal cleared: it was ${by === "met" ? "met" : "judged impossible"}`;
  return { type: "part", part: GOAL_PART, name: "goal_cleared", line, data: { condition, by } };
}

/** The run stopped at one of the session's limits with the goal still set. */
export function goalUnmet(detail: string): PartEvent {
  return {
    type: "part",
    part: GOAL_PART,
    name: "goal_unmet",
    line: `goal not met: ${detail} It stays set: agentloop --continue goes on toward it.`,
    data: { detail },
  };
}

/** What a check concluded, in one word for programs. */
export type CheckVerdict = "met" | "not_met" | "impossible" | "unreadable" | "failed";

export interface CheckFacts {
  condition: string;
  verdict: CheckVerdict;
  reason: string;
  /** This check's number in the session. */
  check: number;
  /** Continuations in a row this run, this check's included when it sends the model on. */
  continuations: number;
  judgeModel: string;
  requests: number;
  usage?: Usage;
}

export function checkEvent(facts: CheckFacts): PartEvent {
  const { usage, judgeModel, ...data } = facts;
  const said = {
    met: "met",
    not_met: "not met",
    impossible: "impossible",
    unreadable: "no verdict",
    failed: "failed",
  }[facts.verdict];
  return {
    type: "part",
    part: GOAL_PART,
    name: "goal_check",
    line: `goal check ${facts.check}: ${said}: ${facts.reason}`,
    data: { ...data, judgeModel },
    ...(usage ? { usage, model: judgeModel } : {}),
  };
}

/** The verdict's word for a check event. */
export function verdictOf(verdict: Verdict): CheckVerdict {
  if (verdict.impossible) return "impossible";
  return verdict.met ? "met" : "not_met";
}

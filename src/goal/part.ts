// The goal part (s17, the goal loop): a gate before every stop. While the session has a goal,
// each finished answer goes to a separate judge (judge.ts) with no tools; met ends the run,
// impossible ends it as a failure, not met sends the model on with the judge's reason, and
// budgets (--goal-max-turns, --max-turns, --max-cost) keep a judge from looping forever. The
// goal is recorded in the session file, so it outlives the process.

import type { BackgroundTasks } from "../background/tasks.js";
import type { FlagValues } from "../core/chapter-flags.js";
import { ConfigError } from "../core/errors.js";
import type { LoopEvent, LoopStopReason } from "../core/events.js";
import type { Limit } from "../core/limits.js";
import { emptyUsage, type Message } from "../core/messages.js";
import type { PartHost, SessionPart, StopAnswer, StopCheck } from "../core/part.js";
import { type ProjectSettings, readAllSettings } from "../core/project-settings.js";
import type { Provider } from "../core/provider.js";
import { createGoalCommand, type GoalStatus } from "./goal-command.js";
import { DEFAULT_GOAL_MAX_TURNS, goalFlags } from "./goal-options.js";
import {
  afterTasks,
  type CheckFacts,
  checkEvent,
  continuation,
  GOAL_PART,
  goalCleared,
  goalNote,
  goalSet,
  goalUnmet,
  restatedGoal,
  verdictOf,
} from "./goal-texts.js";
import { askJudge, type JudgeAnswer } from "./judge.js";
import { recordedGoal } from "./recorded-goal.js";
import { tasksEnded } from "./tasks-ended.js";

/** The session's own limits: a run they end did not meet its goal. */
const SESSION_LIMITS = new Set<LoopStopReason>(["max_turns", "max_cost", "repeated_call"]);

export interface GoalPartOptions {
  options: { maxTurns: number; cwd: string };
  /** The chapters' flags the front end was given; this part reads its own (chapter.ts). */
  flags: FlagValues;
  env: NodeJS.ProcessEnv;
  /** The settings files as start-up read them; absent, they are read when the part starts. */
  settings?: ProjectSettings;
  tasks: BackgroundTasks;
  startModel(name: string): Promise<Provider>;
}

export async function createGoalPart(options: GoalPartOptions): Promise<SessionPart> {
  const flags = goalFlags(options.flags);
  const maxContinuations = flags.maxTurns ?? DEFAULT_GOAL_MAX_TURNS;
  const judgeModelName = flags.model ?? (await goalModelSetting(options));
  let host: PartHost | undefined;
  let judge: Provider | undefined;
  let messages: readonly Message[] = [];
  let condition: string | undefined;
  let flagApplied = false;
  let noteDue = false;
  let pending: LoopEvent[] = [];
  /** The goal the screen and the session file know of: its goal_set has gone out. */
  let told: string | undefined;
  let checks = 0;
  let last: string | undefined;
  // This prompt's run: the judge's requests count against --max-turns with the model's replies.
  const run = { continuations: 0, replies: 0, judgeRequests: 0, stoppedHere: false };

  const set = (next: string) => {
    condition = next;
    noteDue = true;
    // @step goal.goal_set: A goal is set; every finished answer is judged against it.
    pending.push(goalSet(next));
  };
  const clear = (by: "user" | "met" | "impossible") => {
    // A goal set and cleared before any prompt showed it did nothing: neither is told.
    pending = pending.filter((event) => !(event.type === "part" && event.name === "goal_set"));
    // @step goal.goal_cleared: The goal is cleared: met, impossible, or by the person.
    if (told !== undefined) pending.push(goalCleared(told, by));
    told = undefined;
    condition = undefined;
    noteDue = false;
  };
  const judgeProvider = async (): Promise<Provider> => {
    if (!judgeModelName) return (host as PartHost).provider();
    judge ??= await options.startModel(judgeModelName);
    return judge;
  };
  const judgeModel = () => judgeModelName ?? host?.provider().model ?? "the session's model";
  /** Records a check; the stop or the message that follows it is the caller's. */
  const report = (
    facts: Omit<CheckFacts, "condition" | "check" | "judgeModel" | "continuations">,
  ) => {
    checks += 1;
    const event = checkEvent({
      ...facts,
      condition: condition ?? "",
      check: checks,
      judgeModel: judgeModel(),
      continuations: run.continuations,
    });
    last = event.line;
    pending.push(event);
  };
  const stayed = "The goal stays set: agentloop --continue (or the next prompt) checks it again.";

  async function check(signal: AbortSignal): Promise<StopAnswer> {
    const goal = condition as string;
    if (options.options.maxTurns - run.replies - run.judgeRequests < 1) {
      return {
        reason: "max_turns",
        detail: `The goal was not met: no request is left for its check under --max-turns ${options.options.maxTurns}, which counts the judge's requests too. ${stayed}`,
      };
    }
    let answer: JudgeAnswer;
    try {
      answer = await askJudge(await judgeProvider(), goal, messages, signal);
    } catch (error) {
      if (signal.aborted) return null;
      // The judge's model could not start (a --goal-model the provider does not know).
      answer = { outcome: { failed: (error as Error).message }, usage: emptyUsage(), requests: 0 };
    }
    run.judgeRequests += answer.requests;
    const { usage, requests, outcome } = answer;
    if ("failed" in outcome) {
      const reason = `the judge's request failed: ${outcome.failed.replace(/\.$/, "")}`;
      report({ verdict: "failed", reason, requests, usage: requests > 0 ? usage : undefined });
      return { reason: "error", detail: `The goal could not be checked: ${reason}. ${stayed}` };
    }
    if ("unreadable" in outcome) {
      const reason = `the judge answered twice without a verdict (${outcome.unreadable})`;
      report({ verdict: "unreadable", reason, requests, usage });
      return { reason: "error", detail: `The goal was not checked: ${reason}. ${stayed}` };
    }
    // @step goal.goal_check: A judge with no tools decides whether the answer meets the goal.
    const verdict = verdictOf(outcome);
    const goesOn = verdict === "not_met" && run.continuations < maxContinuations;
    if (goesOn) run.continuations += 1;
    report({ verdict, reason: outcome.reason, requests, usage });
    if (verdict === "met") {
      clear("met");
      return { detail: `Goal met: ${outcome.reason}` };
    }
    if (verdict === "impossible") {
      clear("impossible");
      return { reason: "error", detail: `The goal cannot be met: ${outcome.reason}` };
    }
    if (!goesOn) {
      return {
        reason: "max_turns",
        detail: `The goal was not met after ${maxContinuations} continuations in a row (--goal-max-turns): ${outcome.reason} ${stayed}`,
      };
    }
    return { goOn: continuation(goal, outcome.reason) };
  }

  /** Tasks still running: wait for them, then send the model on with what they left. */
  async function afterBackground(signal: AbortSignal): Promise<StopAnswer> {
    await tasksEnded(options.tasks, signal);
    if (signal.aborted) return null;
    const notices = options.tasks.notices();
    pending.push(...notices.map((notice) => notice.event));
    run.continuations += 1;
    return {
      goOn: [...notices.map((notice) => notice.text), afterTasks(condition as string)].join("\n\n"),
    };
  }

  const stopCheck: StopCheck = async (_answer, signal) => {
    if (condition === undefined) return null;
    const waiting = options.tasks.running().length > 0;
    const said =
      waiting && run.continuations < maxContinuations
        ? await afterBackground(signal)
        : await check(signal);
    run.stoppedHere = said !== null && "detail" in said;
    return said;
  };

  const turnsLimit: Limit = () => {
    if (condition === undefined || run.judgeRequests === 0) return null;
    if (run.replies + run.judgeRequests < options.options.maxTurns) return null;
    run.stoppedHere = true;
    return {
      reason: "max_turns",
      detail: `The goal was not met: stopped after ${run.replies} turns and ${run.judgeRequests} judge requests (--max-turns ${options.options.maxTurns} counts both). ${stayed}`,
    };
  };

  const status = (): GoalStatus => ({
    condition,
    checks,
    last,
    judgeModel: judgeModel(),
    maxContinuations,
  });

  return {
    name: GOAL_PART,
    limits: [turnsLimit],
    attach(given) {
      host = given;
    },
    historyStarted(start, history) {
      messages = history;
      if (start === "compact") return;
      condition = undefined;
      noteDue = false;
      if (start === "resume") condition = recordedGoal(`${(host as PartHost).directory()}.jsonl`);
      // The flag sets the goal of the session the command line started, resumed or new.
      if (!flagApplied && flags.condition !== undefined) set(flags.condition);
      flagApplied = true;
    },
    stopCheck() {
      run.continuations = 0;
      run.replies = 0;
      run.judgeRequests = 0;
      run.stoppedHere = false;
      return stopCheck;
    },
    promptNotes() {
      if (!noteDue || condition === undefined) return [];
      noteDue = false;
      return [{ text: goalNote(condition) }];
    },
    restated: () => (condition === undefined ? null : restatedGoal(condition)),
    eventsBefore() {
      const events = pending;
      pending = [];
      told = condition;
      return events;
    },
    eventsAfter(event) {
      if (event.type === "assistant_message") run.replies += 1;
      // A limit of the session's own ended the run: say that the goal was not met.
      if (event.type !== "stop" || condition === undefined || run.stoppedHere) return [];
      // @step goal.goal_unmet: A session limit ended the run with the goal unmet; it stays set.
      return SESSION_LIMITS.has(event.reason) ? [goalUnmet(event.detail)] : [];
    },
    commands: [createGoalCommand({ status, set, clear: () => clear("user") })],
    async close() {
      await judge?.dispose?.();
      const events = pending;
      pending = [];
      return events;
    },
  };
}

/** "goalModel" in the settings files (the project's wins): the judge when --goal-model names none. */
async function goalModelSetting(options: GoalPartOptions): Promise<string | undefined> {
  const files = await readAllSettings({
    workspace: options.options.cwd,
    env: options.env,
    read: options.settings,
  });
  let named: string | undefined;
  for (const { file, settings } of files) {
    const value = settings.goalModel;
    if (value === undefined) continue;
    if (typeof value !== "string" || value.trim() === "") {
      throw new ConfigError(`"goalModel" in ${file} must be a model name.`);
    }
    named = value.trim();
  }
  return named;
}

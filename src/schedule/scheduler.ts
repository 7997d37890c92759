// The session's scheduled jobs as they run: each fires only while the session is idle, once per
// slot (a session busy through several slots fires once, when it becomes idle; a missed slot is
// not made up), and a fire counts only once its request succeeded: a failed one is sent again
// once, going on from the prompt already in the history. The clock is given, so tests move time.

import { ConfigError } from "../core/errors.js";
import type { PartEvent } from "../core/events.js";
import type { PartHost, QueuedOutcome } from "../core/part.js";
import { describeTiming } from "./job-line.js";
import { expiresAt, type Job, jitterMs, newJobId, nextSlot, type ScheduledJob } from "./jobs.js";

export const MAX_JOBS = 50;
/** The longest a timer waits before the schedule looks again (timers cannot wait for weeks). */
const LONGEST_WAIT_MS = 60 * 60 * 1000;

export interface Clock {
  now(): number;
  /** Calls `fire` after `ms`; returns what cancels it. */
  setTimer(fire: () => void, ms: number): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fire, ms) {
    const timer = setTimeout(fire, ms);
    // A waiting job keeps no process alive: the REPL is alive while the person is there.
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export type ScheduleHost = Pick<
  PartHost,
  "queuePrompt" | "isIdle" | "announce" | "runsQueuedPrompts"
>;

export interface Scheduler {
  /** Adds a job; throws a ConfigError when the session has its 50 already. */
  create(job: Omit<Job, "id" | "createdAt">): ScheduledJob;
  list(): ScheduledJob[];
  delete(id: string): Job | undefined;
  /** Replaces every job with `jobs` (a resumed session's durable ones); the expired are dropped. */
  replace(jobs: readonly Job[]): void;
  /** Looks whether a job is due: when a timer goes off and when the session becomes idle. */
  check(): void;
  /** Stops the timer, for good. */
  stop(): void;
}

interface Entry {
  job: Job;
  /** The slot it fires for next, without jitter. */
  slot: number;
  inFlight: boolean;
  /** Its request for this slot failed once already: the next try is the last. */
  failedOnce: boolean;
}

export function createScheduler(options: {
  clock: Clock;
  host(): ScheduleHost | undefined;
  /** The jobs changed: the durable ones are written down. */
  changed(jobs: readonly Job[]): void;
}): Scheduler {
  const { clock } = options;
  const entries = new Map<string, Entry>();
  let cancelTimer: (() => void) | undefined;
  let stopped = false;

  const fireAt = (entry: Entry) => entry.slot + jitterMs(entry.job, entry.slot);
  const say = (name: string, line: string, job: Job) => {
    const event: PartEvent = {
      type: "part",
      part: "schedule",
      name,
      line,
      data: { job: { ...job } },
    };
    options.host()?.announce([event]);
  };
  const changed = () => options.changed([...entries.values()].map((entry) => entry.job));

  /** Moves a job to its next slot after now, or removes it when it has none left. */
  function advance(entry: Entry) {
    const { job } = entry;
    entry.failedOnce = false;
    const next = job.recurring ? nextSlot(job, clock.now()) : null;
    if (next !== null && next <= expiresAt(job)) {
      entry.slot = next;
      return;
    }
    entries.delete(job.id);
    changed();
    if (job.recurring) {
      // @step schedule.job_expired: A recurring job ends a week after it was made.
      say("job_expired", `scheduled job ${job.id} expired: recurring jobs end after 7 days`, job);
    }
  }

  function settle(entry: Entry, outcome: QueuedOutcome) {
    entry.inFlight = false;
    if (entries.get(entry.job.id) !== entry) return;
    const { job } = entry;
    if (outcome.ran && outcome.stop.reason === "error" && !entry.failedOnce) {
      entry.failedOnce = true;
      fire(entry);
      return;
    }
    if (outcome.ran && outcome.stop.reason === "error") {
      say(
        "job_failed",
        `scheduled job ${job.id} failed twice; it fires again at its next slot`,
        job,
      );
    } else if (outcome.ran) {
      // @step schedule.job_fired: A job's prompt ran and its request succeeded: the fire counts.
      say("job_fired", `scheduled job ${job.id} fired: ${job.prompt}`, job);
    }
    advance(entry);
    check();
  }

  function fire(entry: Entry) {
    const host = options.host();
    if (!host) return;
    entry.inFlight = true;
    // @step schedule.fire: A due job's prompt is queued for the idle session, as if typed.
    const outcome = host.queuePrompt({ text: entry.job.prompt, again: entry.failedOnce });
    void outcome.then((result) => settle(entry, result));
  }

  function arm() {
    cancelTimer?.();
    cancelTimer = undefined;
    if (stopped) return;
    // A job already due waits for the session to become idle (check, from `idle`), not a timer.
    const now = clock.now();
    const waiting = [...entries.values()]
      .filter((entry) => !entry.inFlight)
      .map(fireAt)
      .filter((at) => at > now);
    if (waiting.length === 0) return;
    const wait = Math.min(Math.min(...waiting) - now, LONGEST_WAIT_MS);
    cancelTimer = clock.setTimer(check, wait);
  }

  function check() {
    if (stopped) return;
    const host = options.host();
    const serving = host?.runsQueuedPrompts() === "when-idle";
    if (serving && host?.isIdle()) {
      const now = clock.now();
      for (const entry of entries.values()) {
        if (!entry.inFlight && fireAt(entry) <= now) fire(entry);
      }
    }
    arm();
  }

  const scheduled = (entry: Entry): ScheduledJob => ({ job: entry.job, fireAt: fireAt(entry) });

  return {
    create(spec) {
      if (entries.size >= MAX_JOBS) {
        throw new ConfigError(
          `This session has ${MAX_JOBS} scheduled jobs, the most it may have: delete one first.`,
        );
      }
      let id = newJobId();
      while (entries.has(id)) id = newJobId();
      const job: Job = { ...spec, id, createdAt: clock.now() };
      const slot = nextSlot(job, job.createdAt);
      if (slot === null) {
        throw new ConfigError(
          `The cron expression of this job matches no minute in the next year.`,
        );
      }
      const entry: Entry = { job, slot, inFlight: false, failedOnce: false };
      entries.set(id, entry);
      changed();
      arm();
      // @step schedule.job_created: A job is scheduled, by /loop or cron_create; no request is made.
      say("job_created", `scheduled job ${id}: ${describeTiming(job)}: ${job.prompt}`, job);
      return scheduled(entry);
    },
    list: () =>
      [...entries.values()].map(scheduled).sort((a, b) => a.job.createdAt - b.job.createdAt),
    delete(id) {
      const entry = entries.get(id);
      if (!entry) return undefined;
      entries.delete(id);
      changed();
      arm();
      // @step schedule.job_deleted: A job is deleted, by /loop stop or cron_delete.
      say("job_deleted", `scheduled job ${id} deleted`, entry.job);
      return entry.job;
    },
    replace(jobs) {
      entries.clear();
      const now = clock.now();
      for (const job of jobs) {
        // No catch-up: a resumed job waits for its next slot after now; a one-time job whose
        // slot went by while no one ran the session is gone.
        const first = nextSlot(job, job.createdAt);
        const slot = job.recurring
          ? nextSlot(job, now)
          : first !== null && first > now
            ? first
            : null;
        if (slot === null || slot > expiresAt(job)) continue;
        entries.set(job.id, { job, slot, inFlight: false, failedOnce: false });
      }
      arm();
    },
    check,
    stop() {
      stopped = true;
      cancelTimer?.();
    },
  };
}

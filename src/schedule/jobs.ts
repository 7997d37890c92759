// A scheduled job and when it fires: its slots (a cron expression's minutes in local time, or
// every N from when it was made), its jitter, its expiry, and the file that keeps the durable
// ones beside the session, so --continue and --resume bring them back.

import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nextMatch, parseCron } from "./cron.js";

export type JobTiming = { cron: string } | { everyMs: number };

export interface Job {
  /** Eight hex digits, as Claude Code's job ids. */
  id: string;
  prompt: string;
  /** False: fires once, then is deleted. */
  recurring: boolean;
  /** Kept beside the session file, so a resumed session has it again. */
  durable: boolean;
  createdAt: number;
  timing: JobTiming;
}

/** A job as the schedule holds it: with when it fires next, jitter included. */
export interface ScheduledJob {
  job: Job;
  fireAt: number;
}

/** Recurring jobs end a week after they were made, so a forgotten one does not run for ever. */
export const RECURRING_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** A recurring job fires up to a tenth of its period late, at most this much. */
const MAX_JITTER_MS = 15 * 60 * 1000;

export function newJobId(): string {
  return randomBytes(4).toString("hex");
}

/** The first slot of `job` after `after`, without jitter; null when there is none. */
export function nextSlot(job: Job, after: number): number | null {
  if ("everyMs" in job.timing) {
    const periods = Math.floor((after - job.createdAt) / job.timing.everyMs) + 1;
    return job.createdAt + Math.max(1, periods) * job.timing.everyMs;
  }
  return nextMatch(parseCron(job.timing.cron), after);
}

/**
 * How late this job fires after each slot: the same for every fire of a job, different between
 * jobs, so jobs made for the same minute do not all send at once. None for a one-time job.
 */
export function jitterMs(job: Job, slot: number): number {
  if (!job.recurring) return 0;
  const following = nextSlot(job, slot);
  const period = following === null ? 0 : following - slot;
  const share = Number.parseInt(job.id.slice(0, 8), 16) / 2 ** 32;
  return Math.floor(share * Math.min(period / 10, MAX_JITTER_MS));
}

/** When a recurring job stops; a one-time job ends when it fired. */
export function expiresAt(job: Job): number {
  return job.recurring ? job.createdAt + RECURRING_LIFETIME_MS : Number.POSITIVE_INFINITY;
}

const FILE = "scheduled-jobs.json";

/** The durable jobs kept in a session's directory; none when there is no file or it is unreadable. */
export function readDurableJobs(directory: string): Job[] {
  try {
    const jobs = JSON.parse(readFileSync(join(directory, FILE), "utf8")) as unknown;
    return Array.isArray(jobs) ? jobs.filter(isJob) : [];
  } catch {
    return [];
  }
}

export function writeDurableJobs(directory: string, jobs: readonly Job[]): void {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, FILE), `${JSON.stringify(jobs.filter((job) => job.durable))}\n`);
}

function isJob(value: unknown): value is Job {
  const job = value as Job;
  return (
    typeof job?.id === "string" &&
    typeof job.prompt === "string" &&
    typeof job.createdAt === "number" &&
    typeof job.timing === "object" &&
    job.timing !== null &&
    (typeof (job.timing as { cron?: unknown }).cron === "string" ||
      typeof (job.timing as { everyMs?: unknown }).everyMs === "number")
  );
}

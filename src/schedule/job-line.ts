// One line per scheduled job, the same in /loop list and cron_list: its id, when it fires, when
// it fires next (local time), and its prompt.

import type { Job, ScheduledJob } from "./jobs.js";

const UNITS: [number, string][] = [
  [24 * 60 * 60 * 1000, "d"],
  [60 * 60 * 1000, "h"],
  [60 * 1000, "m"],
  [1000, "s"],
];

/** `every 5m`, `cron "0 9 * * 1-5"`, `once at cron "30 14 28 7 *"`. */
export function describeTiming(job: Job): string {
  if ("everyMs" in job.timing) {
    const ms = job.timing.everyMs;
    const [size, unit] = UNITS.find(([size]) => ms % size === 0) ?? [1, "ms"];
    return `every ${ms / size}${unit}`;
  }
  const cron = `cron "${job.timing.cron}"`;
  return job.recurring ? cron : `once at ${cron}`;
}

export function describeJob({ job, fireAt }: ScheduledJob): string {
  const next = new Date(fireAt).toLocaleString("sv-SE");
  const durable = job.durable ? ", durable" : "";
  return `${job.id} · ${describeTiming(job)}${durable} · next ${next} · ${job.prompt}`;
}

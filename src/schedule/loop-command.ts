// /loop, Claude Code's command for a recurring prompt: `/loop [interval] [prompt]` makes the job
// itself (no request to the model: anthropics/claude-code#90883), every 10 minutes when no
// interval is given; `/loop list` shows the jobs, numbered; `/loop stop N|all` deletes them.

import { ConfigError } from "../core/errors.js";
import type { PartCommand } from "../core/part.js";
import { plural } from "../core/wording.js";
import { describeJob, describeTiming } from "./job-line.js";
import type { Scheduler } from "./scheduler.js";

export const DEFAULT_INTERVAL = "10m";
const INTERVAL = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `2s`, `5m`, `1h`, `1d` in milliseconds; null when `word` is not an interval. */
export function intervalMs(word: string): number | null {
  const match = INTERVAL.exec(word);
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

export function createLoopCommand(scheduler: Scheduler): PartCommand {
  return {
    name: "/loop",
    argument: "[interval] PROMPT",
    help: `run a prompt every interval (2s, 5m, 1h, 1d; ${DEFAULT_INTERVAL} if none) while the session is idle; /loop list, /loop stop N|all`,
    run(argument) {
      const [first = "", ...rest] = argument.split(/\s+/);
      if (first === "list" && rest.length === 0) return listJobs(scheduler);
      if (first === "stop" && rest.length === 1) return stopJobs(scheduler, rest[0] as string);
      const every = intervalMs(first);
      const prompt = (every === null ? argument : rest.join(" ")).trim();
      if (prompt === "") {
        throw new ConfigError(
          "Say what to run: /loop 5m check the build (the interval is optional; /loop list, /loop stop N|all).",
        );
      }
      if (every === 0) throw new ConfigError("The interval must be at least 1s.");
      const everyMs = every ?? (intervalMs(DEFAULT_INTERVAL) as number);
      const scheduled = scheduler.create({
        prompt,
        recurring: true,
        durable: false,
        timing: { everyMs },
      });
      const defaulted = every === null ? ` (no interval given: ${DEFAULT_INTERVAL})` : "";
      return [
        `Scheduled job ${scheduled.job.id}, ${describeTiming(scheduled.job)}${defaulted}: it runs when the session is idle, for at most 7 days.`,
        "/loop list shows the jobs; /loop stop N ends one, /loop stop all every one.",
      ].join("\n");
    },
  };
}

function listJobs(scheduler: Scheduler): string {
  const jobs = scheduler.list();
  if (jobs.length === 0) return "No scheduled jobs. /loop 5m PROMPT makes one.";
  return jobs.map((job, index) => `  ${index + 1}. ${describeJob(job)}`).join("\n");
}

/** `which`: a number from /loop list, a job's id, or `all`. */
function stopJobs(scheduler: Scheduler, which: string): string {
  const jobs = scheduler.list();
  if (which === "all") {
    for (const { job } of jobs) scheduler.delete(job.id);
    return jobs.length === 0
      ? "No scheduled jobs to stop."
      : `Stopped ${plural(jobs.length, "scheduled job")}.`;
  }
  const byNumber = /^\d+$/.test(which) ? jobs[Number(which) - 1] : undefined;
  const chosen = byNumber ?? jobs.find(({ job }) => job.id === which);
  if (!chosen) {
    throw new ConfigError(`No scheduled job ${which}: /loop list shows them, numbered.`);
  }
  scheduler.delete(chosen.job.id);
  return `Stopped scheduled job ${chosen.job.id}.`;
}

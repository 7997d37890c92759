// Scheduled prompts (course s12): /loop and the cron tools make jobs, and a job's prompt runs
// through the seam's voice (PartHost.queuePrompt) when the session is idle. Only a front end
// that runs queued prompts whenever the session is idle (the REPL) gets the tools; one-shot mode
// and the editor have no later prompt to run a job in, so the part offers nothing there.

import type { PartHost, SessionPart } from "../core/part.js";
import type { Tool } from "../core/tool.js";
import { plural } from "../core/wording.js";
import { createCronTools } from "./cron-tools.js";
import { readDurableJobs, writeDurableJobs } from "./jobs.js";
import { createLoopCommand } from "./loop-command.js";
import { type Clock, createScheduler, type Scheduler, systemClock } from "./scheduler.js";

export interface SchedulePart extends SessionPart {
  readonly scheduler: Scheduler;
}

/** `tools`: the names chosen for the session (--tools); its cron tools among them are offered. */
export function createSchedulePart(
  options: { clock?: Clock; tools?: readonly string[] } = {},
): SchedulePart {
  const clock = options.clock ?? systemClock;
  let host: PartHost | undefined;
  // The file is written once a job is durable, and again when the last durable one goes.
  let keepsDurable = false;
  const scheduler = createScheduler({
    clock,
    host: () => host,
    changed(jobs) {
      const durable = jobs.some((job) => job.durable);
      if (host && (durable || keepsDurable)) writeDurableJobs(host.directory(), jobs);
      keepsDurable = durable;
    },
  });
  const chosen = options.tools;
  const tools = createCronTools(scheduler).filter((tool) => !chosen || chosen.includes(tool.name));
  const none: Tool[] = [];
  return {
    name: "schedule",
    scheduler,
    tools: (offer) => (!offer.forChild && host?.runsQueuedPrompts() === "when-idle" ? tools : none),
    commands: [createLoopCommand(scheduler)],
    status() {
      const jobs = scheduler.list().length;
      return jobs > 0 ? plural(jobs, "scheduled job") : null;
    },
    attach(given) {
      host = given;
    },
    // A job that came due while the session was busy fires now, once.
    idle: () => scheduler.check(),
    historyStarted(start) {
      // A resumed session has its durable jobs again; a new conversation (/clear) has none.
      if (!host || (start !== "resume" && start !== "clear")) return;
      const jobs = readDurableJobs(host.directory());
      keepsDurable = jobs.length > 0;
      scheduler.replace(jobs);
    },
    async close() {
      scheduler.stop();
      return [];
    },
  };
}

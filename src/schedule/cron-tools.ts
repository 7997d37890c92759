// The model's tools for scheduled prompts, Claude Code's CronCreate, CronList and CronDelete,
// snake-cased: cron_create {cron, prompt, recurring, durable}, cron_list, cron_delete {id}.
// They change nothing outside the session: what a job's prompt does is checked when it runs.

import { ConfigError } from "../core/errors.js";
import type { Tool, ToolOutput } from "../core/tool.js";
import { CHAPTER } from "./chapter.js";
import { parseCron } from "./cron.js";
import { describeJob } from "./job-line.js";
import { MAX_JOBS, type Scheduler } from "./scheduler.js";

export type CronCreateInput = {
  cron: string;
  prompt: string;
  recurring?: boolean;
  durable?: boolean;
};

const [CREATE, LIST, DELETE] = CHAPTER.tools;

const done = (content: string): ToolOutput => ({ content, isError: false });
const failed = (content: string): ToolOutput => ({ content, isError: true });

export function createCronTools(scheduler: Scheduler): Tool[] {
  const create: Tool<CronCreateInput> = {
    name: CREATE,
    description:
      "Schedule a prompt to run in this session when it is idle: a five-field cron expression " +
      '(minute hour day-of-month month day-of-week) in local time, such as "*/10 * * * *" or ' +
      '"0 9 * * 1-5". recurring (default true) fires at every match, for at most 7 days; false ' +
      `fires once, then the job is deleted. durable keeps it when the session is resumed. At most ${MAX_JOBS} jobs. ` +
      "Returns the job's id.",
    inputSchema: {
      type: "object",
      properties: {
        cron: { type: "string", description: "Five fields, local time." },
        prompt: { type: "string", description: "The prompt to run when it fires." },
        recurring: { type: "boolean", description: "Fire at every match (default true)." },
        durable: { type: "boolean", description: "Survive --continue/--resume (default false)." },
      },
      required: ["cron", "prompt"],
    },
    isReadOnly: () => true,
    async run(input) {
      if (input.prompt.trim() === "") return failed("The prompt is empty.");
      try {
        const cron = parseCron(input.cron).expression;
        const scheduled = scheduler.create({
          prompt: input.prompt,
          recurring: input.recurring ?? true,
          durable: input.durable ?? false,
          timing: { cron },
        });
        return done(`Scheduled job ${scheduled.job.id}: ${describeJob(scheduled)}`);
      } catch (error) {
        if (error instanceof ConfigError) return failed(error.message);
        throw error;
      }
    },
  };
  const list: Tool<Record<string, never>> = {
    name: LIST,
    description:
      "List this session's scheduled jobs: id, when each fires, its next fire, its prompt.",
    inputSchema: { type: "object", properties: {} },
    isReadOnly: () => true,
    async run() {
      const jobs = scheduler.list();
      return done(jobs.length === 0 ? "No scheduled jobs." : jobs.map(describeJob).join("\n"));
    },
  };
  const remove: Tool<{ id: string }> = {
    name: DELETE,
    description: "Delete a scheduled job by its id (cron_list shows them).",
    inputSchema: {
      type: "object",
      properties: { id: { type: "string", description: "The job's id, eight hex digits." } },
      required: ["id"],
    },
    isReadOnly: () => true,
    async run(input) {
      const job = scheduler.delete(input.id);
      if (!job) {
        const known = scheduler.list().map((each) => each.job.id);
        const ids = known.length > 0 ? `; the jobs are ${known.join(", ")}` : "; there are none";
        return failed(`No scheduled job ${input.id}${ids}.`);
      }
      return done(`Deleted scheduled job ${job.id}.`);
    },
  };
  return [create, list, remove] as Tool[];
}

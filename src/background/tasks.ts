// The session's background tasks (s11): the commands the model started with
// `run_in_background`, each writing to its capped output file while the model goes on. A task
// that ends is remembered until its notice goes to the model; task_stop ends one, and the end
// of the session ends them all. At most MAX_LIVE_TASKS run at once.

import { join } from "node:path";
import type { BackgroundTask, BackgroundTaskStatus } from "../core/background-task.js";
import type { BackgroundTaskEvent } from "../core/events.js";
import type { Notice } from "../core/notices.js";
import type { BackgroundRun } from "../tools/bash.js";
import type { ShellEnding } from "../tools/shell-process.js";
import { failure, success, type ToolOutput } from "../tools/tool.js";
import { taskNotice } from "./task-notice.js";
import { OUTPUT_CAP_BYTES, openTaskOutput, type TaskOutput } from "./task-output.js";

export const MAX_LIVE_TASKS = 16;

export interface BackgroundTasksOptions {
  /** Where the output files go (the session's directory). */
  outputDirectory: string;
  maxLive?: number;
  outputCapBytes?: number;
  /** Applied to what the model is told (secrets a command printed). */
  redact?: (text: string) => string;
}

export type StoppedBy = "task_stop" | "session_end";

export interface BackgroundTasks {
  /** Starts a task (the bash tool's StartBackground) and says so, or why not. */
  start(run: BackgroundRun): ToolOutput;
  /** Every task of the session, running or ended, in the order started. */
  list(): BackgroundTask[];
  running(): BackgroundTask[];
  /** Ends a running task and everything it started; what the task_stop tool returns. */
  stop(taskId: string): Promise<ToolOutput>;
  /** The notices of the tasks that ended since the last call (the loop's NoticeSource). */
  notices(): Notice[];
  /** Task starts and stops since the last call, for the event stream. */
  takeEvents(): BackgroundTaskEvent[];
  /** Calls `listener` as each task ends (the REPL's line while the model is idle). */
  onEnd(listener: (task: BackgroundTask) => void): () => void;
  /** Ends every running task (the session ends) and returns them as they ended. */
  endAll(): Promise<BackgroundTask[]>;
}

interface Entry {
  task: BackgroundTask;
  timeoutSeconds: number;
  output: TaskOutput;
  controller: AbortController;
  stoppedBy: StoppedBy | null;
  summary: string;
  ended: Promise<void>;
}

export function createBackgroundTasks(options: BackgroundTasksOptions): BackgroundTasks {
  const maxLive = options.maxLive ?? MAX_LIVE_TASKS;
  const redact = options.redact ?? ((text: string) => text);
  const entries: Entry[] = [];
  const untold: Entry[] = [];
  let events: BackgroundTaskEvent[] = [];
  const listeners = new Set<(task: BackgroundTask) => void>();
  const live = () => entries.filter((entry) => entry.task.status === "running");

  const finish = (entry: Entry, ending: ShellEnding) => {
    const { status, exitCode, summary } = describeEnding(entry, ending);
    entry.output.close();
    entry.task = { ...entry.task, status, exit_code: exitCode };
    const problem = entry.output.problem();
    entry.summary = problem
      ? `${summary} (its output file could not be written: ${problem})`
      : summary;
    if (entry.stoppedBy === "session_end") return;
    untold.push(entry);
    for (const listener of listeners) listener({ ...entry.task });
  };

  const stopEntry = async (entry: Entry, by: StoppedBy) => {
    // Being stopped already (task_stop while the session ends): one stop, one event.
    if (entry.stoppedBy) return entry.ended;
    entry.stoppedBy = by;
    // @step background.task_stopped: A background task is stopped, with every process it started.
    entry.controller.abort();
    await entry.ended;
    events.push({ type: "task_stopped", task: { ...entry.task }, by });
  };

  return {
    start(run) {
      const running = live();
      if (running.length >= maxLive) {
        const ids = running.map((entry) => entry.task.task_id).join(", ");
        return failure(
          `Not started: ${maxLive} background tasks are running already (${ids}), the most a session may have. Stop one with task_stop, or run the command in the foreground.`,
        );
      }
      const taskId = `bg_${entries.length + 1}`;
      const output = openTaskOutput(
        join(options.outputDirectory, `${taskId}.output`),
        options.outputCapBytes ?? OUTPUT_CAP_BYTES,
      );
      const task: BackgroundTask = {
        task_id: taskId,
        command: run.command,
        status: "running",
        exit_code: null,
        output_file: output.path,
      };
      const controller = new AbortController();
      const entry: Entry = {
        task,
        timeoutSeconds: run.timeoutSeconds,
        output,
        controller,
        stoppedBy: null,
        summary: "",
        ended: Promise.resolve(),
      };
      entry.ended = run
        .run((chunk) => output.write(chunk), controller.signal)
        .catch((error: Error): ShellEnding => ({ kind: "failed-to-start", message: error.message }))
        .then((ending) => finish(entry, ending));
      entries.push(entry);
      // @step background.task_started: A command starts in the background; the turn goes on.
      events.push({ type: "task_started", task: { ...task } });
      return success(
        `Started background task ${taskId} (bash ${JSON.stringify(run.command)}); its output goes to ${output.path}. ` +
          "You will be told when it ends; read the file to see its output; stop it with task_stop.",
      );
    },
    list: () => entries.map((entry) => ({ ...entry.task })),
    running: () => live().map((entry) => ({ ...entry.task })),
    async stop(taskId) {
      const entry = entries.find((candidate) => candidate.task.task_id === taskId);
      if (!entry) {
        const known = entries.map((each) => `${each.task.task_id} (${each.task.status})`);
        const which =
          known.length > 0
            ? `The session's tasks: ${known.join(", ")}.`
            : "No task was started in this session.";
        return failure(`There is no background task "${taskId}". ${which}`);
      }
      if (entry.task.status !== "running") {
        return failure(
          `Background task ${taskId} is not running: it ended (${entry.task.status}). ${entry.summary}`,
        );
      }
      await stopEntry(entry, "task_stop");
      return success(
        `Stopped background task ${taskId} (bash ${JSON.stringify(entry.task.command)}): it and every process it started were ended. Its output is in ${entry.task.output_file}.`,
      );
    },
    notices() {
      // @step background.task_notification: Tasks that ended are told to the model.
      const told = untold.splice(0);
      return told.map((entry) => {
        const task = { ...entry.task };
        const text = redact(
          taskNotice({ task, summary: entry.summary, tail: entry.output.tail() }),
        );
        return { text, event: { type: "task_notification", task, text } };
      });
    },
    takeEvents() {
      const taken = events;
      events = [];
      return taken;
    },
    onEnd(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async endAll() {
      const running = live();
      await Promise.all(running.map((entry) => stopEntry(entry, "session_end")));
      return running.map((entry) => ({ ...entry.task }));
    },
  };
}

function describeEnding(
  entry: Entry,
  ending: ShellEnding,
): { status: BackgroundTaskStatus; exitCode: number | null; summary: string } {
  const named = `Background command ${JSON.stringify(entry.task.command)}`;
  switch (ending.kind) {
    case "exited":
      return ending.code === 0
        ? { status: "completed", exitCode: 0, summary: `${named} completed (exit code 0).` }
        : {
            status: "failed",
            exitCode: ending.code,
            summary: `${named} failed with exit code ${ending.code}.`,
          };
    case "killed":
      return {
        status: "failed",
        exitCode: null,
        summary: `${named} was killed by signal ${ending.signal}.`,
      };
    case "timed-out":
      return {
        status: "timed_out",
        exitCode: null,
        summary: `${named} timed out after ${entry.timeoutSeconds} s; it and everything it started were killed.`,
      };
    case "interrupted":
      return {
        status: "killed",
        exitCode: null,
        summary:
          entry.stoppedBy === "session_end"
            ? `${named} was stopped because the session ended.`
            : `${named} was stopped with task_stop; it and everything it started were killed.`,
      };
    case "failed-to-start":
      return {
        status: "failed",
        exitCode: null,
        summary: `${named} could not be started: ${ending.message}`,
      };
  }
}

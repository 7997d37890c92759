// One-shot mode: run one task to completion, print the answer (or a JSON result), and exit
// with a code that says how it went. SIGINT and SIGTERM end the run cleanly with 130. A prompt
// a part queues runs after the task only while a part still has work under way (a teammate);
// otherwise the run ends as it would, and the part is told its prompt was not run.

import type { SessionControls } from "../assembly/assemble.js";
import { type LoopEvent, type LoopStop, requestUsage } from "../core/events.js";
import { exitCodeFor } from "../core/exit-codes.js";
import { toolUses } from "../core/messages.js";
import type { AgentSession } from "../session/agent-session.js";
import { createProgress } from "../terminal/progress.js";
import { createRenderer, describeHookRun, type Output } from "../terminal/render.js";
import type { OutputFormat } from "./config.js";
import { buildResult } from "./headless.js";

export interface OneShotOptions {
  session: AgentSession;
  /** The todo list and the background tasks, for the progress line and the JSON result. */
  controls: Pick<SessionControls, "todos" | "tasks">;
  prompt: string;
  outputFormat: OutputFormat;
  stdout: Output & { isTTY?: boolean };
  stderr: Output & { isTTY?: boolean };
}

export async function runOneShot(options: OneShotOptions): Promise<number> {
  const { session, outputFormat, stdout, stderr } = options;
  const started = performance.now();
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);

  // Text for a person: the answer streams to a terminal; piped, only the final answer is
  // printed, so scripts get exactly the answer on stdout and the activity on stderr.
  const render =
    outputFormat === "text"
      ? createRenderer({
          answer: stdout,
          progress: stderr,
          color: !!stderr.isTTY,
          streamText: !!stdout.isTTY,
        })
      : undefined;
  // The live line goes where the activity goes, and only to a terminal.
  const progress = createProgress({
    output: stderr,
    enabled: outputFormat === "text" && !!stderr.isTTY,
    color: !!stderr.isTTY,
    streamText: !!stdout.isTTY,
    runningTasks: () => options.controls.tasks.running().length,
  });

  let numTurns = 0;
  let stop: LoopStop | undefined;
  // The answer's text as it streamed: a reply that asked for tools was not the answer.
  let streamed = "";
  let stopped: LoopEvent[] = [];
  let wake = () => {};
  session.serveQueuedPrompts("while-work-under-way", () => wake());
  /** Shows one prompt's events as they come; returns how it stopped. */
  async function follow(run: AsyncGenerator<LoopEvent, LoopStop>): Promise<LoopStop> {
    streamed = "";
    while (true) {
      const step = await run.next();
      if (step.done) return step.value;
      show(step.value);
    }
  }
  function show(event: LoopEvent) {
    if (requestUsage(event)) numTurns += 1;
    if (event.type === "text_delta") streamed += event.text;
    if (event.type === "assistant_message" && toolUses(event.message).length > 0) streamed = "";
    progress.onEvent(event);
    render?.(event);
    if (outputFormat === "stream-json") stdout.write(`${JSON.stringify(event)}\n`);
    // A hook that blocked or failed is said on stderr in every format; text shows it above.
    const hookLine = !render && event.type === "hook" ? describeHookRun(event) : null;
    if (hookLine) stderr.write(`agentloop: ${hookLine}\n`);
  }
  try {
    stop = await follow(session.runPrompt(options.prompt, controller.signal));
    while (!controller.signal.aborted) {
      const next = session.nextQueued();
      if (next) {
        stop = await follow(next.run(controller.signal));
        continue;
      }
      for (const event of session.announced()) show(event);
      if (!session.workUnderWay()) break;
      // A part whose work ends queues a prompt or announces it, which wakes this up.
      await new Promise<void>((resolve) => {
        wake = resolve;
        controller.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    // Ctrl-C while the run waited for a part's work (a teammate's) interrupts the run all the same.
    if (controller.signal.aborted && stop.reason !== "interrupted") {
      const detail = "Interrupted by the user.";
      stop = { type: "stop", reason: "interrupted", detail, finalText: stop.finalText };
    }
  } finally {
    progress.stop();
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
    // The answer is in: whatever still runs in the background ends with the run.
    stopped = await session.endWork();
    await session.close();
  }
  for (const event of stopped) {
    if (outputFormat === "stream-json") stdout.write(`${JSON.stringify(event)}\n`);
    if (event.type !== "task_stopped") continue;
    const { task_id, command } = event.task;
    stderr.write(
      `agentloop: background task ${task_id} (bash ${JSON.stringify(command)}) was still running when the run ended: it and everything it started were stopped.\n`,
    );
  }

  if (outputFormat === "text") {
    // On a terminal the answer was shown as it streamed, unless it never did (plan mode's plan).
    const shown = stdout.isTTY && stop.finalText.trim() === streamed.trim();
    if (!shown && stop.finalText) stdout.write(`${stop.finalText}\n`);
  } else {
    // The session counts from nothing in this process, resumed or not: its totals are this run's.
    const usage = session.usage();
    const result = buildResult(stop, {
      numTurns,
      usage,
      costUsd: session.cost(),
      sessionId: session.id,
      durationMs: performance.now() - started,
      todos: [...options.controls.todos()],
      backgroundTasks: options.controls.tasks.list(),
      partEvents: stopped.filter((event) => event.type === "part"),
    });
    stdout.write(`${JSON.stringify(result)}\n`);
  }
  return exitCodeFor(stop);
}

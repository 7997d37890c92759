// The interactive session: read a prompt, run the loop on the shared history, show the answer
// as it streams, repeat. Lines starting with a slash are commands (src/repl/commands.ts).
// Ctrl-C clears the line being typed or cancels the running turn; a second Ctrl-C right after
// exits. While it waits for the person, the prompts parts queue run (a scheduled job), one at a
// time and never over a line being typed, and the events parts announce are shown.

import type { SessionControls } from "../command-line/setup.js";
import { type LoopEvent, type LoopStop, requestUsage } from "../core/events.js";
import { EXIT } from "../core/exit-codes.js";
import { addUsage, emptyUsage } from "../core/messages.js";
import type { AgentSession, QueuedRun } from "../session/agent-session.js";
import { type Invocation, ignoredNotice, invocationOf } from "../skills/invocation.js";
import type { Progress } from "../terminal/progress.js";
import { createPromptInput } from "../terminal/prompt-input.js";
import { questionsAsked } from "../terminal/question.js";
import { createRenderer } from "../terminal/render.js";
import { columnsOf, writeWrapped } from "../terminal/wrap.js";
import { type Command, type CommandContext, commandsOf, parseInput } from "./commands.js";
import { answerSummary, startLine } from "./status.js";
import type { ReplTerminal } from "./terminal.js";

export interface ReplOptions {
  session: AgentSession;
  controls: SessionControls;
  terminal: ReplTerminal;
  color: boolean;
  sessionPath: string;
  cwd: string;
  sessionsDirectory: string;
  /** The live line while the model thinks or a tool runs (src/terminal/progress.ts). */
  progress: Progress;
}

const DOUBLE_INTERRUPT_MS = 1500;

export function runRepl(options: ReplOptions): Promise<number> {
  const { session, terminal, progress } = options;
  const { readline, output } = terminal;
  // The questions asked when the running calls started: one more since, and its diff was shown.
  let questionsBefore = 0;
  const render = createRenderer({
    answer: output,
    progress: output,
    color: options.color,
    streamText: true,
    changeShown: () => questionsAsked(readline) > questionsBefore,
  });
  const dim = (text: string) => (options.color ? `\x1b[2m${text}\x1b[0m` : text);
  let running: AbortController | null = null;
  // True from when the prompt is shown until a prompt, command or queued prompt starts.
  let waitingForPerson = false;
  let lastInterrupt = 0;

  return new Promise((resolve) => {
    let finished = false;
    const input = createPromptInput({
      readline,
      input: terminal.input,
      output,
      history: terminal.history,
      onPrompt: (text) => void handle(text),
      onShiftTab: () => void togglePlanMode(),
    });
    const finish = async (code: number) => {
      if (finished) return;
      finished = true;
      running?.abort();
      progress.stop();
      process.off("SIGINT", onInterrupt);
      terminal.input.off("keypress", onKeypress);
      input.close();
      readline.close();
      await session.close();
      writeWrapped(output, `\nSession saved to ${context.sessionPath}`);
      resolve(code);
    };

    const context: CommandContext = {
      session,
      commands: commandsOf(session.parts),
      controls: options.controls,
      cwd: options.cwd,
      sessionsDirectory: options.sessionsDirectory,
      sessionPath: options.sessionPath,
      print: (text) => writeWrapped(output, text),
      get columns() {
        return columnsOf(output);
      },
      async run(work) {
        running = new AbortController();
        try {
          const outcome = work(running.signal);
          let step = await outcome.next();
          for (; !step.done; step = await outcome.next()) {
            if (step.value.type === "tool_start") questionsBefore = questionsAsked(readline);
            progress.onEvent(step.value);
            render(step.value);
          }
          return step.value;
        } finally {
          running = null;
          progress.stop();
        }
      },
      exit: () => void finish(EXIT.done),
    };

    function onInterrupt() {
      if (!running && input.clear()) {
        // Clearing a line is not the first half of a double Ctrl-C.
        lastInterrupt = 0;
        return;
      }
      const now = Date.now();
      if (now - lastInterrupt < DOUBLE_INTERRUPT_MS) return void finish(EXIT.interrupted);
      lastInterrupt = now;
      progress.stop();
      if (running) {
        running.abort();
        output.write("\n(interrupted; press Ctrl-C again to exit)\n");
      } else {
        output.write("\n(press Ctrl-C again to exit, or type exit)\n");
        input.ask();
      }
    }

    async function runPrompt(prompt: string) {
      await runEvents((signal) => session.runPrompt(prompt, signal));
    }

    async function runEvents(events: (signal: AbortSignal) => AsyncGenerator<LoopEvent, LoopStop>) {
      let usage = emptyUsage();
      await context.run(async function* (signal) {
        const run = events(signal);
        let step = await run.next();
        for (; !step.done; step = await run.next()) {
          const used = requestUsage(step.value);
          if (used) usage = addUsage(usage, used);
          yield step.value;
        }
        return step.value;
      });
      writeWrapped(output, dim(answerSummary(usage, session)));
    }

    /** Shows the prompt, after what the parts announced; the parts hear the session is idle. */
    function askPerson() {
      if (finished) return;
      for (const event of session.announced()) render(event);
      waitingForPerson = true;
      input.ask();
      session.idle();
      serveIdle();
    }

    /** While the prompt waits: shows what parts announced, and runs a queued prompt if no line is typed. */
    function serveIdle() {
      if (!waitingForPerson || finished) return;
      const events = session.announced();
      if (events.length > 0) {
        output.write("\n");
        for (const event of events) render(event);
        readline.prompt(true);
      }
      if (input.typing()) return;
      const next = session.nextQueued();
      if (!next) return;
      waitingForPerson = false;
      input.release();
      // Shown where the person's prompt would be: the screen says what was sent.
      output.write(`${next.prompt.text}\n`);
      void runQueued(next);
    }

    async function runQueued(next: QueuedRun) {
      await runEvents((signal) => next.run(signal)).catch(printError);
      askPerson();
    }

    // A line typed and then erased leaves the prompt free for what waits.
    const onKeypress = () => setImmediate(serveIdle);

    /** A skill or custom command the user typed: its prompt, on its model for this prompt. */
    async function runInvocation({ skill, prompt }: Invocation) {
      const ignored = ignoredNotice(skill);
      if (ignored) context.print(`agentloop: ${ignored}`);
      const previous = session.model;
      const switched = skill.model !== undefined && skill.model !== previous;
      if (switched) await options.controls.switchModel(skill.model as string);
      try {
        await runPrompt(prompt);
      } finally {
        if (switched) await options.controls.switchModel(previous);
      }
    }

    async function handle(text: string) {
      waitingForPerson = false;
      const parsed = parseInput(text, context.commands);
      // Recalling "exit" is never what the up arrow is wanted for.
      if (
        parsed.kind !== "empty" &&
        !(parsed.kind === "command" && parsed.command.name === "/exit")
      ) {
        terminal.history.add(text.trim());
      }
      switch (parsed.kind) {
        case "empty":
          break;
        case "prompt":
          await runPrompt(parsed.text);
          break;
        case "unknown": {
          const { skills, loadedSkills } = options.controls;
          const invocation = invocationOf(text, skills, loadedSkills);
          if (invocation) await runInvocation(invocation).catch(printError);
          else context.print(parsed.hint);
          break;
        }
        case "command":
          await runCommand(parsed.command, parsed.argument);
          break;
      }
      askPerson();
    }

    function printError(error: unknown) {
      context.print(`agentloop: ${error instanceof Error ? error.message : String(error)}`);
    }

    async function runCommand(command: Command, argument: string) {
      try {
        await command.run(argument, context);
      } catch (error) {
        printError(error);
      }
    }

    /** Shift-Tab at the prompt does what /plan does, and the prompt comes back as it was. */
    async function togglePlanMode() {
      const parsed = parseInput("/plan");
      if (parsed.kind !== "command") return;
      output.write("\n");
      await runCommand(parsed.command, "");
      if (!finished) readline.prompt(true);
    }

    session.serveQueuedPrompts("when-idle", () => setImmediate(serveIdle));
    terminal.input.on("keypress", onKeypress);
    readline.on("SIGINT", onInterrupt);
    process.on("SIGINT", onInterrupt);
    readline.on("close", () => void finish(EXIT.done));
    writeWrapped(output, dim(startLine(session, options.controls)));
    askPerson();
  });
}

// The interactive session: read a prompt, run the loop on the shared history, show the answer
// as it streams, repeat. Lines starting with a slash are commands (src/repl/commands.ts).
// Ctrl-C clears the line being typed or cancels the running turn; a second Ctrl-C right after
// exits.

import { describeTask } from "../background/task-line.js";
import type { SessionControls } from "../command-line/setup.js";
import { requestUsage } from "../core/events.js";
import { EXIT } from "../core/exit-codes.js";
import { addUsage, emptyUsage } from "../core/messages.js";
import type { AgentSession } from "../session/agent-session.js";
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
      stopListening();
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
      let usage = emptyUsage();
      await context.run(async function* (signal) {
        for await (const event of session.runPrompt(prompt, signal)) {
          const used = requestUsage(event);
          if (used) usage = addUsage(usage, used);
          yield event;
        }
      });
      writeWrapped(output, dim(answerSummary(usage, session)));
    }

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
      if (!finished) input.ask();
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

    // A task that ends while the model is idle is told with the next prompt; a person sees it now.
    const stopListening = options.controls.tasks.onEnd((task) => {
      if (running || finished) return;
      const line = `◆ background task ${describeTask(task)}; the model is told with your next prompt`;
      writeWrapped(output, `\n${dim(line)}`);
      input.ask();
    });
    readline.on("SIGINT", onInterrupt);
    process.on("SIGINT", onInterrupt);
    readline.on("close", () => void finish(EXIT.done));
    writeWrapped(output, dim(startLine(session, options.controls)));
    input.ask();
  });
}

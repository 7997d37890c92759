// The interactive session: read a prompt, run the loop on the shared history, show the answer
// as it streams, repeat. Ctrl-C cancels the running turn; a second Ctrl-C right after exits.

import type { Interface } from "node:readline";
import type { AgentSession } from "./agent-session.js";
import { costOf } from "./cost.js";
import { requestUsage } from "./events.js";
import { EXIT } from "./exit-codes.js";
import { addUsage, emptyUsage, type Usage } from "./messages.js";
import { createRenderer, type Output } from "./render.js";

export interface ReplOptions {
  session: AgentSession;
  readline: Interface;
  output: Output;
  color: boolean;
  sessionPath: string;
}

const EXIT_WORDS = new Set(["exit", "quit", "q"]);
const DOUBLE_INTERRUPT_MS = 1500;

export function runRepl(options: ReplOptions): Promise<number> {
  const { session, readline, output } = options;
  const render = createRenderer({
    answer: output,
    progress: output,
    color: options.color,
    streamText: true,
  });
  let running: AbortController | null = null;
  let lastInterrupt = 0;

  return new Promise((resolve) => {
    let finished = false;
    const finish = async (code: number) => {
      if (finished) return;
      finished = true;
      running?.abort();
      process.off("SIGINT", onInterrupt);
      readline.close();
      await session.close();
      output.write(`\nSession saved to ${options.sessionPath}\n`);
      resolve(code);
    };

    function onInterrupt() {
      const now = Date.now();
      if (now - lastInterrupt < DOUBLE_INTERRUPT_MS) return void finish(EXIT.interrupted);
      lastInterrupt = now;
      if (running) {
        running.abort();
        output.write("\n(interrupted; press Ctrl-C again to exit)\n");
      } else {
        output.write("\n(press Ctrl-C again to exit, or type exit)\n");
        readline.prompt();
      }
    }

    async function runPrompt(prompt: string) {
      running = new AbortController();
      let usage = emptyUsage();
      for await (const event of session.runPrompt(prompt, running.signal)) {
        render(event);
        const used = requestUsage(event);
        if (used) usage = addUsage(usage, used);
      }
      running = null;
      const line = summary(usage, session);
      output.write(options.color ? `\x1b[2m${line}\x1b[0m\n` : `${line}\n`);
    }

    async function compact(focus: string | undefined) {
      running = new AbortController();
      const outcome = session.compact(focus, running.signal);
      let step = await outcome.next();
      for (; !step.done; step = await outcome.next()) render(step.value);
      running = null;
      output.write(`${step.value}\n`);
    }

    readline.on("SIGINT", onInterrupt);
    process.on("SIGINT", onInterrupt);
    readline.on("close", () => void finish(EXIT.done));
    readline.on("line", async (line) => {
      // Lines typed while the agent works are not prompts; questions are answered elsewhere.
      if (running || finished) return;
      const prompt = line.trim();
      if (EXIT_WORDS.has(prompt)) return void finish(EXIT.done);
      if (prompt === "/compact" || prompt.startsWith("/compact ")) {
        await compact(prompt.slice("/compact".length).trim() || undefined);
      } else if (prompt) await runPrompt(prompt);
      if (!finished) readline.prompt();
    });
    readline.setPrompt("› ");
    readline.prompt();
  });
}

function summary(turnUsage: Usage, session: AgentSession): string {
  const parts = [
    `${turnUsage.input_tokens + turnUsage.cache_read_input_tokens + turnUsage.cache_creation_input_tokens} in`,
    `${turnUsage.output_tokens} out`,
  ];
  if (turnUsage.cache_read_input_tokens > 0) {
    parts.push(`${turnUsage.cache_read_input_tokens} from cache`);
  }
  const cost = costOf(session.model, turnUsage);
  const total = costOf(session.model, session.usage());
  if (cost !== null && total !== null) {
    parts.push(`$${cost.toFixed(4)} (session $${total.toFixed(4)})`);
  }
  const fill = session.contextFill();
  if (fill) parts.push(`${Math.round((100 * fill.tokens) / fill.contextWindow)}% of context`);
  return `· ${parts.join(" · ")}`;
}

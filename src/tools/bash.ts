// The bash tool: runs one shell command in the working directory and reports what it printed
// and how it ended.

import { spawn } from "node:child_process";
import type { Tool } from "./tool.js";

export type BashInput = {
  command: string;
  timeout?: number;
};

export interface BashOptions {
  cwd: string;
  /** Characters of output sent back to the model; the middle is cut beyond this. */
  maxOutputChars?: number;
}

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const MAX_TIMEOUT_SECONDS = 600;
const DEFAULT_MAX_OUTPUT_CHARS = 50_000;

export function createBashTool(options: BashOptions): Tool<BashInput> {
  return {
    name: "bash",
    description:
      "Run a bash command in the working directory and return its output and exit code. " +
      `Commands time out after ${DEFAULT_TIMEOUT_SECONDS} s unless "timeout" (seconds, at most ${MAX_TIMEOUT_SECONDS}) says otherwise. ` +
      "Commands cannot read input: pass everything as arguments.",
    inputSchema: {
      type: "object",
      properties: {
        command: { type: "string", description: "The command to run." },
        timeout: { type: "number", description: "Seconds before the command is killed." },
      },
      required: ["command"],
    },
    run: (input, context) => runBash(input, options, context.signal),
  };
}

export async function runBash(
  input: BashInput,
  options: BashOptions,
  signal: AbortSignal,
): Promise<{ content: string; isError: boolean }> {
  const timeoutSeconds = Math.min(input.timeout ?? DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS);
  const child = spawn("bash", ["-c", input.command], {
    cwd: options.cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));

  let ending: string | null = null;
  const killGroup = (why: string) => {
    ending = why;
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  };
  const timer = setTimeout(
    () => killGroup(`timed out after ${timeoutSeconds} s`),
    timeoutSeconds * 1000,
  );
  const onAbort = () => killGroup("interrupted by the user");
  signal.addEventListener("abort", onAbort, { once: true });

  const exitCode = await new Promise<number | null>((resolve) => {
    child.on("error", () => resolve(null));
    child.on("close", (code) => resolve(code));
  });
  clearTimeout(timer);
  signal.removeEventListener("abort", onAbort);

  const body = capOutput(output.trim(), options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
  const status = ending ? `[${ending}]` : `[exit code ${exitCode}]`;
  return {
    content: `${body || "(no output)"}\n${status}`,
    isError: ending !== null || exitCode !== 0,
  };
}

function capOutput(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n[... ${cut} characters cut ...]\n${text.slice(-half)}`;
}

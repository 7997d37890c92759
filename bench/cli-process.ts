// Starts the built CLI (or another Node script) the way a user does: a fresh home, an empty
// workspace, and the environment pointing at a fake Anthropic server that runs in this
// process, so the spawn time and the server's `receivedAt` are read from the same clock.

import { type ChildProcessByStdio, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Readable } from "node:stream";
import { CLI, freshSandbox } from "../test/support/cli-harness.js";
import type { FakeAnthropic } from "../test/support/fake-anthropic-server.js";

export { CLI };
export const BARE_FETCH = resolve(import.meta.dirname, "bare-fetch.mjs");

export interface Started {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** performance.now() just before the spawn. */
  startedAt: number;
  /** Settles when the process has ended and its home is removed; rejects unless it exited 0. */
  exited: Promise<void>;
}

/** `workspace`: the directory it starts in, an empty one of its own unless named. */
export function startAgainstFake(
  script: string,
  args: string[],
  fake: FakeAnthropic,
  workspace?: string,
): Started {
  return startWithEnv(
    script,
    args,
    {
      ANTHROPIC_API_KEY: "sk-ant-bench",
      ANTHROPIC_BASE_URL: fake.url,
      MODEL_ID: "claude-haiku-4-5",
    },
    workspace,
  );
}

/** The same, for a server that `serverEnv` points the script at (a fake OpenAI server). */
export function startWithEnv(
  script: string,
  args: string[],
  serverEnv: Record<string, string>,
  workspace?: string,
): Started {
  const sandbox = freshSandbox();
  const env = { ...sandbox.env, ...serverEnv };
  const startedAt = performance.now();
  const child = spawn(process.execPath, [script, ...args], {
    cwd: workspace ?? sandbox.workspace,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((done, fail) => {
    child.on("close", (code, signal) => {
      rmSync(dirname(sandbox.home), { recursive: true, force: true });
      if (code === 0) done();
      else
        fail(new Error(`${script} ended with ${signal ?? `exit code ${code}`}: ${stderr.trim()}`));
    });
  });
  return { child, startedAt, exited };
}

/** How often the memory high-water mark is read while a process runs. */
const RSS_POLL_MS = 20;

/**
 * Follows the most memory the process has held (VmHWM), in MB. The kernel keeps this
 * high-water mark, so the last reading before the process exits covers nearly all of its run.
 */
export function watchPeakRss(pid: number): { stop(): number } {
  let peakMb = 0;
  const read = () => {
    peakMb = Math.max(peakMb, peakRssMb(pid) ?? 0);
  };
  const timer = setInterval(read, RSS_POLL_MS);
  return {
    stop() {
      clearInterval(timer);
      if (peakMb === 0) throw new Error(`Could not read the memory of ${pid} from /proc.`);
      return peakMb;
    },
  };
}

/** The process's VmHWM in MB; null once it has exited. */
function peakRssMb(pid: number): number | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null;
  }
  const kilobytes = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  return kilobytes === undefined ? null : Number(kilobytes) / 1024;
}

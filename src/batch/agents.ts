// What every batch command starts its agents with: the provider resolved once, for an API a
// rate gate all workers send through, each task's environment, and where workspaces go. The
// local pool and the queue's workers share it, so it lives below both.

import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../core/errors.js";
import { resolveProvider } from "../providers/presets.js";
import { workspaceEnvironment } from "../providers/workspace-env.js";
import type { RunCommand } from "./command-line.js";
import { startRateGate } from "./rate-gate.js";
import type { AgentCommand } from "./run-task.js";

export interface BatchIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** How to start agentloop itself: node and this CLI's path. */
  agentArgv: string[];
}

/**
 * How every task's agent starts: the provider resolved once here (a missing key is one error,
 * not one per task), and for an API, its requests sent through one rate gate for all.
 */
export async function prepareAgents(
  command: Pick<RunCommand, "agent" | "requestsPerMinute">,
  io: BatchIO,
  /** Also told of each pause, to spread it further (to every worker of a queue). */
  onPause?: (ms: number) => void,
): Promise<{ agent: AgentCommand; close: () => Promise<void> }> {
  const { env, notices } = await workspaceEnvironment({ workspace: process.cwd(), env: io.env });
  for (const notice of notices) io.stderr.write(`agentloop: ${notice}\n`);
  const resolved = resolveProvider({
    provider: command.agent.provider,
    model: command.agent.model,
    baseURL: command.agent.baseURL,
    env,
  });
  if (resolved instanceof ConfigError) throw resolved;
  const flags = ["--provider", resolved.preset, ...command.agent.flags];
  let close = (): Promise<void> => Promise.resolve();
  if (resolved.protocol !== "local") {
    const gate = await startRateGate({
      upstream: resolved.baseURL,
      requestsPerMinute: command.requestsPerMinute,
      onPause: (ms) => {
        io.stderr.write(
          `agentloop: the API asked to slow down; all workers wait ${Math.ceil(ms / 1000)} s.\n`,
        );
        onPause?.(ms);
      },
    });
    flags.push("--base-url", gate.url);
    close = gate.close;
  }
  // Each task gets its own HOME; the user's settings and downloaded models stay where they are.
  const home = homedir();
  const agentEnv: NodeJS.ProcessEnv = {
    ...io.env,
    // A key found in .env only: the agent keeps it from the commands it runs, as with any key.
    ...(resolved.apiKeyEnv && resolved.apiKey ? { [resolved.apiKeyEnv]: resolved.apiKey } : {}),
    XDG_CONFIG_HOME: io.env.XDG_CONFIG_HOME || join(home, ".config"),
    XDG_CACHE_HOME: io.env.XDG_CACHE_HOME || join(home, ".cache"),
  };
  return { agent: { argv: io.agentArgv, flags, env: agentEnv, model: resolved.model }, close };
}

export function workParentOf(command: Pick<RunCommand, "workDir">): string {
  return command.workDir ?? join(tmpdir(), "agentloop-batch");
}

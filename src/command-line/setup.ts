// Starts a session from the command line: the assembly (src/assembly/) with the terminal as
// its SessionIO. With a readline, a person at the terminal answers the questions; without one
// (a one-shot run), none is asked and notices go to stderr.

import type { Interface } from "node:readline";
import {
  type AssembledSession,
  assembleSession,
  type SessionControls,
} from "../assembly/assemble.js";
import type { SessionIO } from "../assembly/session-io.js";
import { terminalAsk } from "../terminal/ask.js";
import { terminalHooksAsk, terminalMcpAsk, terminalSettingsAsk } from "../terminal/mcp-ask.js";
import { terminalPlanApproval } from "../terminal/plan-approval.js";
import type { RunOptions } from "./config.js";

export type { SessionControls };
export type StartedSession = AssembledSession;

export function startSession(
  options: RunOptions,
  io: { readline: Interface | undefined; holdProgress?: () => () => void },
): Promise<StartedSession> {
  return assembleSession(options, terminalIO(io.readline, io.holdProgress));
}

/** The terminal as a session's SessionIO: questions on stdout, where readline is, notices on stderr. */
export function terminalIO(
  readline: Interface | undefined,
  holdProgress: (() => () => void) | undefined,
): SessionIO {
  const say = (sentence: string) => {
    const resume = holdProgress?.();
    process.stderr.write(`agentloop: ${sentence}\n`);
    resume?.();
  };
  return {
    askPermission: readline && terminalAsk(readline, holdProgress),
    approveMcpServer: readline && terminalMcpAsk(readline),
    approveProjectSettings: readline && terminalSettingsAsk(readline),
    approveProjectHooks: readline && terminalHooksAsk(readline),
    approvePlan: readline && terminalPlanApproval(readline, holdProgress),
    notice: say,
    repaired(description) {
      if (readline) process.stderr.write(`agentloop: repaired the history: ${description}\n`);
    },
    progress: process.stderr,
  };
}

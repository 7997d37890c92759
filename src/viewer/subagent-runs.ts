// The runs of the agent tool's children in a session: each `subagent` line of the session file
// names the child's own transcript, which is read here so the page can show the child's run
// folded under the call that started it.

import { dirname, join } from "node:path";
import type { LoopStopReason } from "../core/events.js";
import type { Message } from "../core/messages.js";
import { readSession, type SessionContents } from "../session/session-file.js";

export interface SubagentRun {
  agentType: string;
  agentId: string;
  reason: LoopStopReason;
  /** The child's messages, its prompt first. */
  messages: Message[];
  /** Why the child's transcript could not be read, when it could not. */
  problem?: string;
}

/** The children's runs by the id of the agent call that started each. */
export function subagentRuns(
  session: SessionContents,
  sessionPath: string,
): Record<string, SubagentRun> {
  const runs: Record<string, SubagentRun> = {};
  for (const entry of session.entries) {
    if (entry.type !== "subagent") continue;
    const run = { agentType: entry.agent_type, agentId: entry.agent_id, reason: entry.reason };
    try {
      const child = readSession(join(dirname(sessionPath), entry.transcript));
      runs[entry.tool_use_id] = { ...run, messages: child.messages };
    } catch (error) {
      runs[entry.tool_use_id] = { ...run, messages: [], problem: (error as Error).message };
    }
  }
  return runs;
}

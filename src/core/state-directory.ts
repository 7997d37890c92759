// Where agentloop keeps what it learns as it runs (sessions, input history, MCP approvals, the
// sandbox's scratch): one place, below every part that keeps something there.

import { homedir } from "node:os";
import { join } from "node:path";

/** `$XDG_STATE_HOME/agentloop`, by default `~/.local/state/agentloop`. */
export function stateDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const stateHome = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(stateHome, "agentloop");
}

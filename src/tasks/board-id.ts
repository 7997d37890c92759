// What may name a board: a session's id, or the name in AGENTLOOP_TASK_LIST_ID. It becomes a
// directory's name, so it is one plain path segment, never "..", never hidden.

import { basename } from "node:path";

export const BOARD_ID = /^[\w-][\w.-]*$/;

/**
 * The board a session works on: the one named by AGENTLOOP_TASK_LIST_ID (`shared`) when given,
 * else the session's own, named by its directory (its id). A team's members all use the lead's.
 */
export function boardIdOf(shared: string | undefined, sessionDirectory: string): string {
  return shared ?? basename(sessionDirectory);
}

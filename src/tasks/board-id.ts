// What may name a board: a session's id, or the name in AGENTLOOP_TASK_LIST_ID. It becomes a
// directory's name, so it is one plain path segment, never "..", never hidden.

export const BOARD_ID = /^[\w-][\w.-]*$/;

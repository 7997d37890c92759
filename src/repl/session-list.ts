// One line per recorded session, for `agentloop sessions` and the REPL's /sessions.

import { plural } from "../core/wording.js";
import type { SessionSummary } from "../session/session-file.js";

const PROMPT_WIDTH = 60;

/** `id  start  model  N turns  first prompt`; the session `current` is marked as this one. */
export function sessionLines(sessions: SessionSummary[], current?: string): string[] {
  return sessions.map((session) => {
    const prompt =
      session.firstPrompt.length > PROMPT_WIDTH
        ? `${session.firstPrompt.slice(0, PROMPT_WIDTH - 1)}…`
        : session.firstPrompt;
    const started = session.startedAt.slice(0, 16).replace("T", " ");
    const line = `${session.id}  ${started}  ${session.model}  ${plural(session.turns, "turn")}  ${prompt}`;
    return session.id === current ? `${line}  (this session)` : line;
  });
}

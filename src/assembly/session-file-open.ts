// The session file a session writes: a new one, or the one it resumes with its history made
// valid again, and what it says of the permission mode.

import { AGENTLOOP_BUILD } from "../core/build-info.js";
import type { Message } from "../core/messages.js";
import type { PermissionMode } from "../core/permission-mode.js";
import type { TodoItem } from "../core/todo-item.js";
import type { ResolvedProvider } from "../providers/presets.js";
import { findSessionToResume } from "../session/resume.js";
import {
  newSessionId,
  openSessionWriter,
  SESSION_FORMAT_VERSION,
  type SessionWriter,
} from "../session/session-file.js";

export type Resume = { latest: true } | { id: string } | undefined;

/**
 * Says in the session file whether it goes on in plan mode, when the file says otherwise (it
 * last recorded `recorded`): a resume then starts in plan mode exactly when it was left in it.
 */
export function recordPlanMode(
  writer: SessionWriter,
  mode: PermissionMode,
  recorded: PermissionMode | undefined,
): void {
  if ((mode === "plan") !== (recorded === "plan")) writer.recordMode(mode);
}

/** A new session file, or the file of the session to resume with its history made valid again. */
export function openSessionFile(
  directory: string,
  cwd: string,
  resolved: ResolvedProvider,
  resume: Resume,
): {
  writer: SessionWriter;
  messages: Message[];
  notices: string[];
  contextWindow?: number;
  todos: TodoItem[];
  mode?: PermissionMode;
} {
  const resumed = resume ? findSessionToResume(directory, cwd, resume) : undefined;
  const notices = (resumed?.problems ?? []).map(
    (problem) => `session file line ${problem.line} skipped: ${problem.reason}.`,
  );
  const writer = openSessionWriter(
    directory,
    resumed?.header ?? {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id: newSessionId(),
      cwd,
      model: resolved.model,
      provider: resolved.preset,
      startedAt: new Date().toISOString(),
      agentloop: AGENTLOOP_BUILD,
    },
    { resume: resumed !== undefined },
  );
  for (const message of resumed?.added ?? []) writer.recordMessage(message);
  const contextWindow = resumed?.contextWindow;
  return {
    writer,
    messages: resumed?.messages ?? [],
    notices,
    contextWindow,
    todos: resumed?.todos ?? [],
    mode: resumed?.mode,
  };
}

// Finds the session to continue and turns its file back into a conversation the API accepts,
// whatever happened to the run that wrote it (clean exit, crash, kill -9 mid-tool or during a
// compaction).

import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../core/errors.js";
import type { Message, UserMessage } from "../core/messages.js";
import { toolUses } from "../core/messages.js";
import type { TodoItem } from "../core/todo-item.js";
import type { PermissionMode } from "../permissions/policy.js";
import { lastTodoList } from "../planning/last-todos.js";
import { interruptedResult } from "../tools/toolbox.js";
import { contextFromEntries } from "./replay.js";
import {
  listSessions,
  readSession,
  type SessionHeader,
  type SessionProblem,
} from "./session-file.js";

export interface ResumedSession {
  header: SessionHeader;
  messages: Message[];
  problems: SessionProblem[];
  /** Messages added so the history is valid again; they are appended to the file too. */
  added: Message[];
  /** The window its latest compaction fitted the history into (one the API may have named). */
  contextWindow: number | undefined;
  /** The todo list of its last todo_write call, from every message, summarised ones included. */
  todos: TodoItem[];
  /** The permission mode it last changed to (plan mode began or ended), if it ever changed. */
  mode: PermissionMode | undefined;
}

export function findSessionToResume(
  directory: string,
  cwd: string,
  resume: { latest: true } | { id: string },
): ResumedSession {
  const path =
    "id" in resume ? join(directory, `${resume.id}.jsonl`) : listSessions(directory, cwd)[0]?.path;
  if (!path)
    throw new ConfigError(`There is no session to continue in ${cwd}; start one with agentloop.`);
  if (!existsSync(path)) {
    throw new ConfigError(
      `There is no session with id ${"id" in resume ? resume.id : ""}; run agentloop sessions to list them.`,
    );
  }
  const { header, entries, problems } = readSession(path);
  if (!header)
    throw new ConfigError(
      `The session file ${path} has no readable header line, so it cannot be resumed.`,
    );
  // Compacted sessions go on from their compacted history, not from every message ever sent.
  const messages = contextFromEntries(entries);
  const added = answerUnfinishedToolCalls(messages);
  const compactions = entries.flatMap((entry) => (entry.type === "compaction" ? [entry] : []));
  const contextWindow = compactions.at(-1)?.contextWindow;
  const everyMessage = entries.flatMap((entry) =>
    entry.type === "message" ? [entry.message] : [],
  );
  const todos = lastTodoList(everyMessage);
  const mode = entries.findLast((entry) => entry.type === "permission_mode")?.mode;
  return { header, messages: [...messages, ...added], problems, added, contextWindow, todos, mode };
}

/** A run killed while tools ran leaves tool calls without results: answer them as interrupted. */
function answerUnfinishedToolCalls(messages: Message[]): Message[] {
  const last = messages.at(-1);
  if (last?.role !== "assistant") return [];
  const calls = toolUses(last);
  if (calls.length === 0) return [];
  const answer: UserMessage = { role: "user", content: calls.map(interruptedResult) };
  return [answer];
}

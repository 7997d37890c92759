// `session/list`: the sessions in agentloop's session files, for an editor's history, newest
// first, filtered by cwd and paged with an opaque cursor.
// https://agentclientprotocol.com/protocol/v1/session-list

import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { ListSessionsRequest, ListSessionsResponse } from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { listSessions, sessionsDirectory } from "../session/session-file.js";

/** Sessions per page: a history view's first screen and more, without reading every file twice. */
export const SESSIONS_PER_PAGE = 50;

/** The cursor is the offset of the page's first session, as text the client passes back. */
const cursorOf = (offset: number) => Buffer.from(`offset:${offset}`).toString("base64url");

function offsetOf(cursor: string): number {
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match)
    throw RequestError.invalidParams(
      undefined,
      `The cursor "${cursor}" is not one this agent gave.`,
    );
  return Number(match[1]);
}

export function listAcpSessions(
  request: ListSessionsRequest,
  env: NodeJS.ProcessEnv = process.env,
): ListSessionsResponse {
  const cwd = request.cwd ?? undefined;
  if (cwd !== undefined && !isAbsolute(cwd)) {
    throw RequestError.invalidParams(undefined, `cwd must be an absolute path, got "${cwd}".`);
  }
  const offset = request.cursor ? offsetOf(request.cursor) : 0;
  const all = listSessions(sessionsDirectory(env), cwd);
  const page = all.slice(offset, offset + SESSIONS_PER_PAGE);
  const next = offset + page.length;
  return {
    sessions: page.map((summary) => ({
      sessionId: summary.id,
      cwd: summary.cwd,
      title: summary.firstPrompt || null,
      // The file is appended to as the session goes on: its change time is its last activity.
      updatedAt: statSync(summary.path).mtime.toISOString(),
    })),
    ...(next < all.length ? { nextCursor: cursorOf(next) } : {}),
  };
}

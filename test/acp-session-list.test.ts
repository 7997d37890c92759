// `session/list`'s pages: every session once, newest first, a cursor while more remain.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listAcpSessions, SESSIONS_PER_PAGE } from "../src/acp/session-list.js";

/** A state directory holding `count` sessions of `cwd`, started one minute apart. */
function stateWith(count: number, cwd: string): NodeJS.ProcessEnv {
  const stateHome = mkdtempSync(join(tmpdir(), "agentloop-list-"));
  const directory = join(stateHome, "agentloop", "sessions");
  mkdirSync(directory, { recursive: true });
  for (let index = 0; index < count; index++) {
    const id = `s${String(index).padStart(3, "0")}`;
    const startedAt = new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString();
    const header = { type: "session", version: 1, id, cwd, model: "m", provider: "p", startedAt };
    writeFileSync(join(directory, `${id}.jsonl`), `${JSON.stringify(header)}\n`);
  }
  return { XDG_STATE_HOME: stateHome };
}

describe("session/list pages", () => {
  it("gives every session once across pages, newest first, and no cursor after the last page", () => {
    const count = SESSIONS_PER_PAGE + 3;
    const env = stateWith(count, "/work/project");
    const first = listAcpSessions({ cwd: "/work/project" }, env);
    expect(first.sessions).toHaveLength(SESSIONS_PER_PAGE);
    expect(first.sessions[0]?.sessionId).toBe(`s${String(count - 1).padStart(3, "0")}`);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = listAcpSessions({ cwd: "/work/project", cursor: first.nextCursor }, env);
    expect(second.sessions).toHaveLength(3);
    expect(second.nextCursor).toBeUndefined();
    const ids = [...first.sessions, ...second.sessions].map((each) => each.sessionId);
    expect(new Set(ids).size).toBe(count);
  });

  it("refuses a relative cwd with one sentence", () => {
    expect(() => listAcpSessions({ cwd: "project" }, stateWith(0, "/x"))).toThrow(
      'cwd must be an absolute path, got "project".',
    );
  });
});

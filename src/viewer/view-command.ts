// `agentloop view [SESSION_ID] [--port N] [--open] [--export out.html]`: replays a session in
// the browser, either served from 127.0.0.1 until Ctrl-C or written to one HTML file.

import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError } from "../core/errors.js";
import { listSessions } from "../session/session-file.js";
import { openInBrowser } from "./open-browser.js";
import { renderSessionPage } from "./render.js";
import { startViewerServer } from "./server.js";
import type { Timeline } from "./timeline.js";

export interface ViewCommandArgs {
  /** A session id, or the path of a session file; the latest session in `cwd` when absent. */
  sessionId?: string;
  cwd: string;
  port?: number;
  open?: boolean;
  exportPath?: string;
  sessionsDir: string;
  stdout: (line: string) => void;
  /** Stops the server; without one, SIGINT does. */
  signal?: AbortSignal;
}

/** Exports the page, or serves it until stopped. User mistakes throw a ConfigError. */
export async function runViewCommand(args: ViewCommandArgs): Promise<void> {
  const sessionPath = findSessionFile(args);
  if (args.exportPath) {
    const { html, timeline } = await renderSessionPage(sessionPath);
    const target = resolve(args.cwd, args.exportPath);
    try {
      writeFileSync(target, html);
    } catch (error) {
      throw new ConfigError(`Could not write ${target}: ${(error as Error).message}.`);
    }
    args.stdout(`Wrote ${target} (${describe(timeline)}).`);
    reportProblems(timeline, args.stdout);
    return;
  }

  const { timeline } = await renderSessionPage(sessionPath);
  const server = await startViewerServer(sessionPath, args.port);
  args.stdout(`Viewing ${sessionPath} (${describe(timeline)}) at ${server.url}`);
  reportProblems(timeline, args.stdout);
  args.stdout("Press Ctrl-C to stop.");
  if (args.open) openInBrowser(server.url, args.stdout);
  await stopped(args.signal);
  await server.close();
}

export function findSessionFile(args: {
  sessionId?: string;
  cwd: string;
  sessionsDir: string;
}): string {
  const { sessionId, cwd, sessionsDir } = args;
  if (sessionId === undefined) {
    const latest = listSessions(sessionsDir, cwd)[0];
    if (!latest) {
      throw new ConfigError(
        `No session was recorded in ${cwd}; run agentloop here first, or name one: agentloop view SESSION_ID.`,
      );
    }
    return latest.path;
  }
  if (sessionId.endsWith(".jsonl") && existsSync(resolve(cwd, sessionId))) {
    return resolve(cwd, sessionId);
  }
  const byId = resolve(sessionsDir, `${sessionId}.jsonl`);
  if (!sessionId.includes("/") && existsSync(byId)) return byId;
  throw new ConfigError(
    `No session "${sessionId}" in ${sessionsDir}; agentloop sessions lists the ones recorded here.`,
  );
}

function describe(timeline: Timeline): string {
  const requests = timeline.steps.length;
  const messages = timeline.messages.length;
  return `${requests} ${requests === 1 ? "request" : "requests"}, ${messages} ${messages === 1 ? "message" : "messages"}`;
}

function reportProblems(timeline: Timeline, stdout: (line: string) => void): void {
  const lines = timeline.problems.map((problem) => problem.line);
  if (lines.length === 0) return;
  const named =
    lines.length > 10
      ? `${lines.slice(0, 10).join(", ")} and ${lines.length - 10} more`
      : lines.join(", ");
  stdout(
    `Note: ${lines.length === 1 ? "line" : "lines"} ${named} of the session could not be read; the page shows the rest and lists why.`,
  );
}

function stopped(signal: AbortSignal | undefined): Promise<void> {
  if (signal) {
    return new Promise((done) => {
      if (signal.aborted) done();
      else signal.addEventListener("abort", () => done(), { once: true });
    });
  }
  return new Promise((done) => process.once("SIGINT", () => done()));
}

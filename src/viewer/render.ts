// Reads a session file and renders its viewer page.

import { ConfigError } from "../core/errors.js";
import { readSession, type SessionContents } from "../session/session-file.js";
import { renderViewerPage } from "./page-html.js";
import { viewerPageScript } from "./page-script.js";
import { subagentRuns } from "./subagent-runs.js";
import { buildTimeline, type Timeline } from "./timeline.js";

export interface RenderedSession {
  html: string;
  timeline: Timeline;
}

export async function renderSessionPage(sessionPath: string): Promise<RenderedSession> {
  let contents: SessionContents;
  try {
    contents = readSession(sessionPath);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`Could not read the session file ${sessionPath}: ${reason}.`);
  }
  const timeline = buildTimeline(contents, subagentRuns(contents, sessionPath));
  return { html: renderViewerPage(timeline, await viewerPageScript()), timeline };
}

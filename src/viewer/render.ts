// Reads a session file and renders its viewer page.

import { ConfigError } from "../core/errors.js";
import { readSession, type SessionContents } from "../session/session-file.js";
import { codeBeside } from "./code-origin.js";
import { renderViewerPage } from "./page-html.js";
import { viewerPageScript } from "./page-script.js";
import { stepSources } from "./step-sources.js";
import { subagentRuns } from "./subagent-runs.js";
import { buildTimeline } from "./timeline.js";
import type { ViewerData } from "./viewer-data.js";

export interface RenderedSession {
  html: string;
  timeline: ViewerData;
}

export async function renderSessionPage(sessionPath: string): Promise<RenderedSession> {
  let contents: SessionContents;
  try {
    contents = readSession(sessionPath);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`Could not read the session file ${sessionPath}: ${reason}.`);
  }
  const steps = buildTimeline(contents, subagentRuns(contents, sessionPath));
  const timeline = { ...steps, code: codeBeside(contents.header, await stepSources()) };
  return { html: renderViewerPage(timeline, await viewerPageScript()), timeline };
}

// Reads a session file and renders its viewer page.

import { dirname } from "node:path";
import { ConfigError } from "../core/errors.js";
import { stepSources } from "../core/step-sources.js";
import { readSession, type SessionContents } from "../session/session-file.js";
import { archivedStepSources } from "../session/source-archive.js";
import { codeBeside } from "./code-origin.js";
import { renderViewerPage } from "./page-html.js";
import { viewerPageScript } from "./page-script.js";
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
  const kept = (source: string) => archivedStepSources(dirname(sessionPath), source);
  const code = codeBeside(contents.header, await stepSources(), kept);
  const timeline = { ...steps, code };
  return { html: renderViewerPage(timeline, await viewerPageScript()), timeline };
}

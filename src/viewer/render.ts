// Reads a session file and renders its viewer page.

import { readSession } from "../session.js";
import { renderViewerPage } from "./page-html.js";
import { viewerPageScript } from "./page-script.js";
import { buildTimeline, type Timeline } from "./timeline.js";

export interface RenderedSession {
  html: string;
  timeline: Timeline;
}

export async function renderSessionPage(sessionPath: string): Promise<RenderedSession> {
  const timeline = buildTimeline(readSession(sessionPath));
  return { html: renderViewerPage(timeline, await viewerPageScript()), timeline };
}

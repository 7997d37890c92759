// The web part as a session starts it: with web_fetch, the user's webFetch settings read (a
// project's ignored, and the person told so) and a directory for the files web_fetch saves.
// Search alone (a tools list without web_fetch) needs neither, nor web_fetch's code; with it,
// its fetching code still waits for the first fetch (fetch-page.ts, page-content.ts).

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionPart } from "../core/part.js";
import type { GateOptions } from "./fetch-gate.js";
import { createSearchPart } from "./search-part.js";
import { readWebSettings } from "./web-settings.js";

export interface WebStart extends Omit<GateOptions, "workspace" | "ask"> {
  cwd: string;
  io: { askPermission?: GateOptions["ask"] };
  notice(sentence: string): void;
  /** The sandbox's scratch directory, when there is one: commands there can read the downloads. */
  scratch: string | undefined;
  /** Which of the part's tools the session offers, and whether a subagent gets web_fetch. */
  fetch: boolean;
  fetchForChild: boolean;
  search: boolean;
}

export async function startWebPart(start: WebStart): Promise<SessionPart> {
  if (!start.fetch) return createSearchPart();
  // Imported here: web_fetch's client, checks and converter load only for a session offering it.
  const { createWebPart } = await import("./part.js");
  const gate = { mode: start.mode, rules: start.rules, workspace: start.cwd, env: start.env };
  const settings = await readWebSettings(start.cwd, start.env);
  if (settings.ignored) start.notice(settings.ignored);
  return createWebPart({
    ...gate,
    ask: start.io.askPermission,
    allowHosts: settings.allowHosts,
    fetch: start.fetch,
    fetchForChild: start.fetchForChild,
    search: start.search,
    downloads: mkdtempSync(join(start.scratch ?? tmpdir(), "agentloop-web-")),
  });
}

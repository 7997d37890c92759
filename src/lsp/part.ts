// Language servers' diagnostics after each edit: after `write` and `edit` change a file a
// configured server serves, the result the model reads says the edit was applied and lists the
// errors that file has now and did not have before, for the version just written. The edit waits
// for them within a bound; diagnostics that come later are told before the next request, as a
// notice, unless a later edit of the file made them stale.

import { readFileSync, statSync } from "node:fs";
import { relative } from "node:path";
import type { LoopEvent, PartEvent } from "../core/events.js";
import { withTextAdded } from "../core/messages.js";
import type { Notice } from "../core/notices.js";
import type { SessionPart } from "../core/part.js";
import { resolveToolPath } from "../core/tool-path.js";
import { readLspServers, type ServerConfig, serverFor } from "./config.js";
import type { Diagnostic, LanguageServer } from "./language-server.js";
import { countOf, newProblems, problemsText } from "./new-problems.js";
import { createServerPool, workspaceOf } from "./server-pool.js";

/** The tools whose calls change one file, named by their `file_path`. */
const EDITING_TOOLS = new Set(["write", "edit"]);
/** How many editing calls may be between their two hooks at once. */
const MOST_WAITING = 16;
/** A file larger than this is not sent to a server. */
const LARGEST_FILE = 4 * 1024 * 1024;

interface Before {
  path: string;
  config: ServerConfig;
  language: string;
  /** The file's text before the call; null when it did not exist. */
  text: string | null;
}

export async function startLspPart(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
}): Promise<SessionPart | null> {
  const servers = await readLspServers(options.cwd, options.env);
  // None configured, or every one turned off: nothing starts.
  if (servers.length === 0) return null;
  const waiting: LoopEvent[] = [];
  const notices: Notice[] = [];
  const befores = new Map<string, Before>();
  const counted = new Map<string, PartEvent>();
  const event = (name: string, line: string, data: Record<string, unknown>): PartEvent => ({
    type: "part",
    part: "lsp",
    name,
    line,
    data,
  });
  const pool = createServerPool((name, line, data) => waiting.push(event(name, line, data)));
  const shown = (path: string) => relative(options.cwd, path) || path;

  /** Tells the model, before its next request, of new problems that came after the edit's result. */
  const tellLate = (
    server: LanguageServer,
    before: Before,
    outcome: Promise<{ version: number; problems: Diagnostic[] }>,
  ) => {
    outcome.then(
      ({ version, problems }) => {
        // A later edit of the file has its own diagnostics: these are stale.
        if (server.document(before.path)?.version !== version || problems.length === 0) return;
        const file = shown(before.path);
        const { name, severity } = before.config;
        const text = problemsText(name, file, problems, severity).replace(
          "The edit was applied. ",
          `After the edit of ${file} was applied, its diagnostics came late. `,
        );
        const line = `lsp ${name}: ${countOf(problems.length, severity)} in ${file} (late)`;
        // @step lsp.late_diagnostics: Diagnostics that came after the edit's result go before the next request.
        notices.push({ text, event: event("late_diagnostics", line, { file, problems }) });
      },
      () => {},
    );
  };

  return {
    name: "lsp",
    toolHooks: {
      async beforeCall(call) {
        const before = beforeEdit(call.name, call.input, options.cwd, servers);
        if (!before) return {};
        // A call refused after this (by the permission check) never reaches afterCall: its
        // entry is dropped once a few newer ones wait (subagents may edit side by side).
        if (befores.size >= MOST_WAITING) befores.delete(befores.keys().next().value as string);
        befores.set(call.id, before);
        return {};
      },
      async afterCall(call, result, signal) {
        const before = befores.get(call.id);
        befores.delete(call.id);
        if (!before || result.is_error) return result;
        const text = readText(before.path);
        const server = pool.serverFor(before.config, workspaceOf(before.path, options.cwd));
        if (text === null || !server) return result;
        const { config, language, path } = before;
        const outcome = (async () => {
          const open = server.document(path);
          const known = open && open.text === before.text ? open.known : null;
          const baseline =
            before.text === null
              ? []
              : (known ?? (await server.check(path, language, before.text).diagnostics));
          const checked = server.check(path, language, text);
          const problems = newProblems(baseline, await checked.diagnostics, config.severity);
          return { version: checked.version, problems };
        })();
        const inTime = await within(outcome, config.waitMs, signal);
        const file = shown(path);
        const data = { server: config.name, file, waitedMs: inTime.waitedMs };
        if (!inTime.value) {
          tellLate(server, before, outcome);
          const line = `lsp ${config.name}: no diagnostics within ${config.waitMs} ms`;
          counted.set(call.id, event("diagnostics", line, { ...data, problems: null }));
          return result;
        }
        const { problems } = inTime.value;
        const line = `lsp ${config.name}: ${countOf(problems.length, config.severity)} in ${file}`;
        counted.set(call.id, event("diagnostics", line, { ...data, problems }));
        if (problems.length === 0) return result;
        // @step lsp.diagnostics: The edit's result lists the errors the edit added, as the server found them.
        const told = problemsText(config.name, file, problems, config.severity);
        return { ...result, content: withTextAdded(result.content, `\n\n${told}`) };
      },
    },
    notices: () => notices.splice(0),
    eventsBefore: () => waiting.splice(0),
    eventsAfter(loopEvent) {
      if (loopEvent.type !== "tool_end") return [];
      const shownEvent = counted.get(loopEvent.call.id);
      counted.delete(loopEvent.call.id);
      return shownEvent ? [shownEvent] : [];
    },
    async close() {
      await pool.stopAll();
      return waiting.splice(0);
    },
  };
}

/** What an editing call's file is before it runs, when a configured server serves it. */
function beforeEdit(
  tool: string,
  input: unknown,
  cwd: string,
  servers: readonly ServerConfig[],
): Before | null {
  const given = (input as { file_path?: unknown }).file_path;
  if (!EDITING_TOOLS.has(tool) || typeof given !== "string") return null;
  const path = resolveToolPath(cwd, given);
  const served = serverFor(servers, path);
  if (!served) return null;
  return { path, config: served.server, language: served.language, text: readText(path) };
}

/** A regular file's text, or null (missing, not a file, too large to send). */
function readText(path: string): string | null {
  try {
    const stats = statSync(path);
    if (!stats.isFile() || stats.size > LARGEST_FILE) return null;
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** The value if it comes within `ms` (and before `signal`), and how long was waited. */
async function within<T>(
  promise: Promise<T>,
  ms: number,
  signal: AbortSignal,
): Promise<{ value: T | null; waitedMs: number }> {
  const start = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
    onAbort = () => resolve(null);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  const value = await Promise.race([promise.catch(() => null), late]);
  clearTimeout(timer);
  signal.removeEventListener("abort", onAbort);
  return { value, waitedMs: Date.now() - start };
}

// The session's language servers: one per configured server and workspace, started at the first
// edit of a file it serves. A git worktree is a workspace of its own, with its own server, so
// two checkouts of one project never see each other's diagnostics (anthropics/claude-code
// #50224). A server that stops is said once and started again at a later edit, a bounded number
// of times.

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ServerConfig } from "./config.js";
import { type LanguageServer, startLanguageServer } from "./language-server.js";

/** How many times a server that stopped is started again before it is left stopped. */
export const MOST_RESTARTS = 2;

export interface ServerPool {
  /** The server for `config` in `root`, started if it is not running; null once it was given up. */
  serverFor(config: ServerConfig, root: string): LanguageServer | null;
  stopAll(): Promise<void>;
}

/** What the pool tells the person: a server started ("server_started") or stopped ("server_stopped"). */
type Say = (name: string, line: string, data: Record<string, unknown>) => void;

export function createServerPool(say: Say): ServerPool {
  const running = new Map<string, LanguageServer>();
  const restarts = new Map<string, number>();
  const given = new Set<string>();
  return {
    serverFor(config, root) {
      const key = `${config.name}\0${root}`;
      const server = running.get(key);
      if (server && server.stopped() === null) return server;
      if (given.has(key)) return null;
      if (server) restarts.set(key, (restarts.get(key) ?? 0) + 1);
      // @step lsp.server_started: A language server starts at the first edit of a file it serves, one per workspace.
      const started = startLanguageServer(config, root, (why) => {
        const count = restarts.get(key) ?? 0;
        const data = { server: config.name, root, why, restarts: count };
        if (count >= MOST_RESTARTS) {
          given.add(key);
          say(
            "server_stopped",
            `the language server ${config.name} stopped again (${why}); it is not started again`,
            data,
          );
        } else if (count === 0) {
          say(
            "server_stopped",
            `the language server ${config.name} stopped (${why}); it starts again at the next edit`,
            data,
          );
        }
      });
      running.set(key, started);
      say("server_started", `started the language server ${config.name} in ${root}`, {
        server: config.name,
        root,
      });
      return started;
    },
    async stopAll() {
      await Promise.all([...running.values()].map((server) => server.stop()));
      running.clear();
    },
  };
}

/** The workspace a file belongs to: the nearest folder above it holding `.git`, else `fallback`. */
export function workspaceOf(file: string, fallback: string): string {
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    if (existsSync(join(folder, ".git"))) return folder;
    if (dirname(folder) === folder) return fallback;
  }
}

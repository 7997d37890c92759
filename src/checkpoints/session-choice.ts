// Which session `agentloop rewind` means: the latest one started in this directory, or the one
// --resume names, with the directory it was started in (where its snapshots were taken).

import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../core/errors.js";
import { listSessions, readSession, sessionsDirectory } from "../session/session-file.js";

export function findSessionFile(
  env: NodeJS.ProcessEnv,
  cwd: string,
  id: string | undefined,
): { path: string; cwd: string } {
  const directory = sessionsDirectory(env);
  if (id === undefined) {
    const latest = listSessions(directory, cwd)[0];
    if (!latest) throw new ConfigError(`There is no session in ${cwd} to rewind.`);
    return { path: latest.path, cwd };
  }
  const path = join(directory, `${id}.jsonl`);
  const header = /^[\w.-]+$/.test(id) && existsSync(path) ? readSession(path).header : null;
  if (!header) {
    throw new ConfigError(
      `There is no session with id ${id}; run agentloop sessions to list them.`,
    );
  }
  return { path, cwd: header.cwd };
}

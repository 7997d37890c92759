// Which session `agentloop rewind` means: the latest one started in this directory, or the one
// --resume names.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../core/errors.js";
import { listSessions, sessionsDirectory } from "../session/session-file.js";

export function findSessionFile(
  env: NodeJS.ProcessEnv,
  cwd: string,
  id: string | undefined,
): string {
  const directory = sessionsDirectory(env);
  if (id === undefined) {
    const latest = listSessions(directory, cwd)[0];
    if (!latest) throw new ConfigError(`There is no session in ${cwd} to rewind.`);
    return latest.path;
  }
  const path = join(directory, `${id}.jsonl`);
  if (!/^[\w.-]+$/.test(id) || !existsSync(path)) {
    throw new ConfigError(
      `There is no session with id ${id}; run agentloop sessions to list them.`,
    );
  }
  return path;
}

// `"webFetch": {"allowHosts": ["wiki.internal:443", "localhost:5173"]}`: the names whose
// addresses web_fetch does not check. Read from the user's own settings only: a repository's
// .agentloop/settings.json could otherwise point web_fetch at the machine it runs on.

import { ConfigError } from "../core/errors.js";
import { isRecord, readUserOnlyKey } from "../core/settings.js";

export interface WebSettings {
  /** "host:port", the host lower-case and without IPv6 brackets. */
  allowHosts: string[];
  /** A sentence for the person when the project's settings tried to set webFetch, else null. */
  ignored: string | null;
}

const HOST_PORT = /^(\[[0-9a-f:.]+\]|[^\s:/[\]]+):(\d{1,5})$/i;

export async function readWebSettings(
  workspace: string,
  env: NodeJS.ProcessEnv,
): Promise<WebSettings> {
  const lets = "let web_fetch reach hosts on your network";
  const { value, file, ignored } = await readUserOnlyKey(workspace, env, "webFetch", lets);
  return { allowHosts: allowHostsIn(value, file), ignored };
}

function allowHostsIn(webFetch: unknown, file: string): string[] {
  if (webFetch === undefined) return [];
  const hosts = isRecord(webFetch) ? (webFetch.allowHosts ?? []) : null;
  if (!Array.isArray(hosts) || hosts.some((host) => typeof host !== "string")) {
    throw new ConfigError(
      `"webFetch" in ${file} must be an object whose "allowHosts" is a list of "host:port" names.`,
    );
  }
  return (hosts as string[]).map((entry) => {
    const found = HOST_PORT.exec(entry.trim());
    if (!found) {
      throw new ConfigError(
        `"webFetch.allowHosts" in ${file} lists "${entry}", which is not "host:port" (for example "localhost:5173").`,
      );
    }
    const host = (found[1] as string).replace(/^\[|\]$/g, "").toLowerCase();
    return `${host}:${Number(found[2])}`;
  });
}

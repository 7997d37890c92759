// Reads a `.env` file into a plain object. The values configure agentloop itself; they are
// never copied into process.env, so the commands the agent runs do not inherit them.

import { readOwnFile } from "./own-file.js";

export interface Dotenv {
  values: Record<string, string>;
  /** Why the file was there and not read (a link out of `places`, a device, too large). */
  skipped?: string;
}

/** The file's values, read only if it leads inside `places` and is a small regular file. */
export function readDotenv(path: string, places: readonly string[]): Dotenv {
  const read = readOwnFile(path, places);
  if ("text" in read) return { values: parseDotenv(read.text) };
  return "skipped" in read
    ? { values: {}, skipped: `${path} was not read: ${read.skipped}.` }
    : { values: {} };
}

export function parseDotenv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(rawLine);
    if (!match) continue;
    const [, name, rawValue = ""] = match as unknown as [string, string, string];
    values[name] = unquote(rawValue.trim());
  }
  return values;
}

function unquote(value: string): string {
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
    const inner = value.slice(1, -1);
    return quote === '"' ? inner.replace(/\\n/g, "\n").replace(/\\"/g, '"') : inner;
  }
  return value.replace(/\s+#.*$/, "");
}

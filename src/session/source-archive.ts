// The code behind each step, kept beside the sessions of the build that wrote them. A viewer
// page carries its own build's excerpts; for a session written by another build, the viewer
// looks here for that build's own, so a session viewed after an upgrade still shows the code
// that ran. One small file per build (about 36 KB), written by the first session that builds
// runs, next to the session files so that copying them keeps it.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomically } from "../core/atomic-write.js";
import { AGENTLOOP_BUILD } from "../core/build-info.js";
import type { StepSource, StepSources } from "../core/step-sources.js";

export function archivedSourcesPath(sessionsDir: string, source: string): string {
  return join(sessionsDir, "sources", `${source}.json`);
}

/**
 * Keeps this build's step sources beside its sessions, once per build. A build run from source
 * (tsx, the tests) has no source id and keeps nothing.
 */
export async function archiveStepSources(sessionsDir: string): Promise<void> {
  const { source } = AGENTLOOP_BUILD;
  if (source === null) return;
  const path = archivedSourcesPath(sessionsDir, source);
  if (existsSync(path)) return;
  // Imported here: only the first session of a build needs the table.
  const { stepSources } = await import("../core/step-sources.js");
  const table = await stepSources();
  if (table.id !== source) return;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomically(path, JSON.stringify(table), { mode: 0o600 });
}

/**
 * The step sources of build `source` when they are kept here, whole and unchanged (their id is
 * the hash of their excerpts); null otherwise.
 */
export function archivedStepSources(sessionsDir: string, source: string): StepSources | null {
  // The id names a file: nothing but an id may.
  if (!/^[0-9a-f]{12}$/.test(source)) return null;
  let table: unknown;
  try {
    table = JSON.parse(readFileSync(archivedSourcesPath(sessionsDir, source), "utf8"));
  } catch {
    return null;
  }
  if (!isStepSources(table) || table.id !== source) return null;
  const hash = createHash("sha256").update(JSON.stringify(table.sources)).digest("hex");
  return hash.startsWith(source) ? table : null;
}

function isStepSources(value: unknown): value is StepSources {
  if (!hasStrings(value, ["id", "version"])) return false;
  const { sources } = value as { sources?: unknown };
  return (
    typeof sources === "object" && sources !== null && Object.values(sources).every(isStepSource)
  );
}

function isStepSource(value: unknown): value is StepSource {
  if (!hasStrings(value, ["key", "note", "file", "functionName"])) return false;
  const { line, firstLine, lines } = value as Partial<StepSource>;
  return (
    Number.isInteger(line) &&
    Number.isInteger(firstLine) &&
    Array.isArray(lines) &&
    lines.every((text) => typeof text === "string")
  );
}

function hasStrings(value: unknown, keys: string[]): boolean {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return keys.every((key) => typeof record[key] === "string");
}

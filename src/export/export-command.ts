// `agentloop export --format atif [SESSION] [-o FILE]`: a recorded session in a format other
// tools read. ATIF is the one there is: Harbor's trajectories, which benchmarks such as
// Terminal-Bench keep beside each run.

import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError } from "../core/errors.js";
import { EXIT } from "../core/exit-codes.js";
import { findSessionFile } from "../viewer/view-command.js";
import { exportAtif } from "./atif.js";

export const EXPORT_USAGE =
  "agentloop export --format atif [SESSION] [-o FILE]: the session (an id or a .jsonl path; the latest of this directory when left out) as an ATIF trajectory.";

const FORMATS = ["atif"];

export interface ExportCommandIO {
  argv: string[];
  cwd: string;
  sessionsDir: string;
  version: string;
  stdout: (text: string) => void;
}

/** Writes the trajectory to stdout or the file named; user mistakes throw a ConfigError. */
export function runExportCommand(io: ExportCommandIO): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(io.argv);
  } catch (error) {
    throw new ConfigError(`${(error as Error).message} Usage: ${EXPORT_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) {
    throw new ConfigError(
      `export takes one session, got ${positionals.length}. Usage: ${EXPORT_USAGE}`,
    );
  }
  const format = values.format ?? "atif";
  if (!FORMATS.includes(format)) {
    throw new ConfigError(`Unknown export format "${format}": choose ${FORMATS.join(", ")}.`);
  }
  const path = findSessionFile({
    sessionId: positionals[0],
    cwd: io.cwd,
    sessionsDir: io.sessionsDir,
  });
  const json = `${JSON.stringify(exportAtif(path, io.version), null, 2)}\n`;
  if (values.output === undefined) {
    io.stdout(json);
    return EXIT.done;
  }
  const target = resolve(io.cwd, values.output);
  try {
    writeFileSync(target, json);
  } catch (error) {
    throw new ConfigError(`Could not write ${target}: ${(error as Error).message}.`);
  }
  return EXIT.done;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: { format: { type: "string" }, output: { type: "string", short: "o" } },
  });
}

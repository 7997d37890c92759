// The process table from `ps`, for systems without /proc (macOS), and on Linux when forced.
// One snapshot lists every process with its parent, group and state, followed by its command
// line and the environment it was started with (shown only for processes of the same user,
// which ours are). The listing is spelled as POSIX has it, which procps and Darwin's ps both
// follow (one -o per column: BSD reads the rest of "pid=,ppid=" as pid's header), except
// for the environment: procps shows it with `e`, Darwin with `-E` (its `e` means every process).
//
// ps keeps no start times, so every command's lookup reads the whole snapshot: its cost grows
// with the processes of the machine (see `npm run bench`).

import { spawnSync } from "node:child_process";
import {
  carriesMarker,
  type ListedProcess,
  type ProcessTable,
  pickWithDescendants,
} from "./process-table.js";

const ENVIRONMENT_OPTION = process.platform === "darwin" ? "-E" : "e";

/** Room for every process's environment: a few KB each. */
const MAX_LISTING_BYTES = 256 * 2 ** 20;

const COLUMNS = ["-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "stat="];

/** PID, parent, group, state, then the command line and environment to the end of the line. */
const ROW = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+) ?(.*)$/;

interface Row extends ListedProcess {
  /** The command line and environment, space-separated, as ps prints them. */
  words: string;
}

export const psTable: ProcessTable = {
  find(query) {
    const listing = ps(["-A", "-ww", ...COLUMNS, "-o", "args=", ENVIRONMENT_OPTION]);
    const isOurs = (row: Row) =>
      query.groups.has(row.group) ||
      (query.markers.length > 0 &&
        carriesMarker(Buffer.from(row.words, "latin1"), query.markers, SPACE));
    return pickWithDescendants(rows(listing), isOurs);
  },
  running(pids) {
    if (pids.length === 0) return [];
    const listing = ps([...COLUMNS, "-p", pids.join(",")]);
    return [...rows(listing)].filter((row) => !row.exited).map((row) => row.pid);
  },
  startTimeOf: () => undefined,
  // The name and the value are joined inside awk, so awk's own command line never matches.
  shellListingOfMarked: `ps -A -ww -o pid= -o args= ${ENVIRONMENT_OPTION} | awk -v name="$1" -v value="$2" 'index($0, " " name "=" value) { print $1 }'`,
};

const SPACE = 0x20;

function* rows(listing: string): Generator<Row> {
  for (const line of listing.split("\n")) {
    const match = ROW.exec(line);
    if (!match) continue;
    const [, pid, parent, group, state, words] = match as unknown as string[];
    yield {
      pid: Number(pid),
      parent: Number(parent),
      group: Number(group),
      exited: state?.startsWith("Z") === true,
      words: words ?? "",
    };
  }
}

/**
 * ps's output. It runs in a plain environment, as PS_FORMAT or PS_PERSONALITY would change
 * procps's columns, and a locale could change its digits. It exits 1 when `-p` matches none.
 */
function ps(args: string[]): string {
  const result = spawnSync("ps", args, {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
    encoding: "latin1",
    maxBuffer: MAX_LISTING_BYTES,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (result.error) throw new Error(`Cannot list processes with ps: ${result.error.message}.`);
  if (result.status !== 0 && (result.status !== 1 || result.stderr.trim() !== "")) {
    throw new Error(
      `Cannot list processes with ps: ${result.stderr.trim() || `exit code ${result.status}`}.`,
    );
  }
  return result.stdout;
}

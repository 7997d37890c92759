// The seam between finding a command's processes and the system that lists them. Linux answers
// per process from /proc (proc-table.ts); macOS has no /proc, so there one `ps` snapshot
// answers for all of them (ps-table.ts). Both pick the same processes: those in one of the
// command's process groups or carrying its marker in the environment they were started with,
// and every descendant of those.

export interface ProcessQuery {
  groups: ReadonlySet<number>;
  markers: readonly MarkerEntry[];
  /**
   * When the command began, as the table's own `startTimeOf` gave it: only processes started
   * since can be the command's, which a table may use to look at fewer. A hint, not a filter.
   */
  startedSince?: number;
}

/** An environment entry, "NAME=value", that marks a process as ours. */
export interface MarkerEntry {
  bytes: Buffer;
  /** False: the entry only has to start with these bytes (a session's prefix). */
  exact: boolean;
}

export interface ProcessTable {
  /** PIDs of the live processes the query picks, and of their live descendants. */
  find(query: ProcessQuery): number[];
  /** Those of `pids` that still run (a zombie does not). */
  running(pids: readonly number[]): number[];
  /** The start time of a process, for `startedSince`; undefined if the table keeps none. */
  startTimeOf(pid: number): number | undefined;
  /**
   * A POSIX shell command that prints, one a line, the PIDs of the processes whose environment
   * has an entry starting with "$1=$2": how the reaper (reaper.ts) finds them once agentloop,
   * and this code with it, is gone. Nothing in its own command line may match.
   */
  shellListingOfMarked: string;
}

/** One row of a listing of every process. */
export interface ListedProcess {
  pid: number;
  parent: number;
  group: number;
  exited: boolean;
}

/**
 * From a listing of every process: the live ones `isOurs` picks, and their live descendants,
 * which are ours too even if they dropped the marker or changed group. Never this process.
 */
export function pickWithDescendants<T extends ListedProcess>(
  listing: Iterable<T>,
  isOurs: (process: T) => boolean,
): number[] {
  const children = new Map<number, number[]>();
  const found: number[] = [];
  for (const entry of listing) {
    if (entry.exited) continue;
    const siblings = children.get(entry.parent);
    if (siblings) siblings.push(entry.pid);
    else children.set(entry.parent, [entry.pid]);
    if (isOurs(entry)) found.push(entry.pid);
  }
  const ours = new Set<number>();
  for (let pid = found.pop(); pid !== undefined; pid = found.pop()) {
    if (ours.has(pid) || pid === process.pid) continue;
    ours.add(pid);
    found.push(...(children.get(pid) ?? []));
  }
  return [...ours];
}

/**
 * Whether `entries`, environment entries each ended by `separator` (NUL in /proc, a space in
 * `ps`'s listing), hold one of the markers as a whole entry (or, for a prefix, its start).
 */
export function carriesMarker(
  entries: Buffer,
  markers: readonly MarkerEntry[],
  separator: number,
): boolean {
  return markers.some(({ bytes, exact }) => {
    for (let at = entries.indexOf(bytes); at !== -1; at = entries.indexOf(bytes, at + 1)) {
      const startsEntry = at === 0 || entries[at - 1] === separator;
      const end = entries[at + bytes.length];
      if (startsEntry && (!exact || end === undefined || end === separator)) return true;
    }
    return false;
  });
}

// Which of the options newer than the oldest bubblewrap we run on the installed one has, from
// its --help, remembered in a file of agentloop's state under the program's path, size, inode
// and modification time. Asking starts a process before every session's first request; the
// help of one build of the program never changes, and a new build (an upgrade, another program
// on the PATH) has another path, size, inode or time, so it is asked again.

import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";

/**
 * Options newer than the oldest bubblewrap we run on (0.4), used where the installed one has
 * them. `--disable-userns` (0.8) keeps a command from making a user namespace of its own, in
 * which it would be root again, with the kernel's namespace code exposed to it.
 */
const OPTIONAL_OPTIONS = ["--disable-userns"];

/** Asked once per program in a process, whether or not a file remembers it. */
const asked = new Map<string, string[]>();

/**
 * Without blocking, for the trial run. `cache`: the file that remembers the answer across
 * sessions; absent, --help is asked once per process.
 */
export async function detectOptions(bwrap: string, cache?: string): Promise<string[]> {
  const known = asked.get(bwrap) ?? remembered(bwrap, cache);
  if (known) return known;
  const help = await new Promise<string>((done) =>
    execFile(bwrap, ["--help"], (_, stdout) => done(`${stdout ?? ""}`)),
  );
  return learned(bwrap, cache, help);
}

/** At once (a few ms), for a sandbox made without a trial run first. */
export function optionsNow(bwrap: string, cache?: string): string[] {
  const known = asked.get(bwrap) ?? remembered(bwrap, cache);
  if (known) return known;
  let help = "";
  try {
    help = execFileSync(bwrap, ["--help"], { encoding: "utf8", stdio: "pipe" });
  } catch {
    // Not installed: the command's own start says so.
  }
  return learned(bwrap, cache, help);
}

function learned(bwrap: string, cache: string | undefined, help: string): string[] {
  const found = OPTIONAL_OPTIONS.filter((option) =>
    new RegExp(`^\\s*${option}\\s`, "m").test(help),
  );
  asked.set(bwrap, found);
  // Only an answer from a program that is there: a missing one is asked again next time.
  const program = identity(bwrap);
  if (cache && program && help !== "") remember(cache, program, found);
  return found;
}

interface Remembered {
  /** The program's path, size, inode and modification time, as statSync gives them. */
  program: string;
  options: string[];
}

function remembered(bwrap: string, cache: string | undefined): string[] | undefined {
  const program = cache ? identity(bwrap) : null;
  if (!cache || !program) return undefined;
  const entry = entriesIn(cache).find((each) => each?.program === program);
  const options = entry?.options;
  if (!Array.isArray(options) || !options.every((option) => OPTIONAL_OPTIONS.includes(option))) {
    return undefined;
  }
  asked.set(bwrap, options);
  return options;
}

function remember(cache: string, program: string, options: string[]): void {
  // One entry per program path: an upgraded program replaces its old entry.
  const path = program.split("\n")[0];
  const kept = entriesIn(cache).filter((each) => each?.program?.split("\n")[0] !== path);
  try {
    mkdirSync(dirname(cache), { recursive: true, mode: 0o700 });
    // Beside it, then renamed over it: another session reads the old list or the new one.
    const temp = `${cache}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify([...kept, { program, options }], null, 2)}\n`);
    renameSync(temp, cache);
  } catch {
    // Not remembered: the next session asks again.
  }
}

/** What the file remembers; none when there is no file yet, or it is not a list (then rewritten). */
function entriesIn(cache: string): Partial<Remembered>[] {
  try {
    const read: unknown = JSON.parse(readFileSync(cache, "utf8"));
    return Array.isArray(read) ? read : [];
  } catch {
    return [];
  }
}

/** "path\nsize\ninode\nmtime" of the program `bwrap` names (a path, or a name on the PATH). */
function identity(bwrap: string): string | null {
  const candidates = bwrap.includes("/")
    ? [resolve(bwrap)]
    : (process.env.PATH ?? "")
        .split(delimiter)
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, bwrap));
  for (const candidate of candidates) {
    try {
      const stat = statSync(candidate);
      if (stat.isFile() && (stat.mode & 0o111) !== 0) {
        return [candidate, stat.size, stat.ino, stat.mtimeMs].join("\n");
      }
    } catch {
      // Not here: the next directory of the PATH.
    }
  }
  return null;
}

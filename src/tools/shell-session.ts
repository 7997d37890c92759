// What the bash tool remembers between calls: the working directory (so `cd sub` in one call
// means the next call runs in `sub`), a temporary directory for full outputs, and which
// commands left processes running, so they can all be ended when the session ends (or, by its
// reaper, when agentloop is killed without a chance to end them).

import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildCommandEnv, type CommandEnvOptions } from "./command-env.js";
import { JOB_MARKER_VARIABLE, KILL_GRACE_MS, killProcesses } from "./process-tree.js";
import { type Reaper, startReaper } from "./reaper.js";

export interface ShellSessionOptions extends CommandEnvOptions {
  /** The workspace root: where commands start, and where they go back to if their directory vanishes. */
  root: string;
  /** The environment commands inherit (before it is made non-interactive); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where the session's own files go; default os.tmpdir(). Must be visible to commands. */
  tempParent?: string;
}

/** Everything one call needs to run. */
export interface PreparedCall {
  cwd: string;
  /** Set when the previous working directory no longer exists. */
  lostDirectory: string | null;
  env: Record<string, string>;
  marker: string;
  fullOutputPath: string;
  /** Which of the session's directory records this call writes; see `finish`. */
  cwdSlot: number;
}

/** The variable that tells the startup file where this command records its last directory. */
const CWD_FILE_VARIABLE = "AGENTLOOP_CWD_FILE";
/** Where the startup file builds the trap, before it unsets it. */
const TRAP_VARIABLE = "AGENTLOOP_TRAP";

export class ShellSession {
  private readonly root: string;
  private readonly baseEnv: Record<string, string>;
  private readonly tempParent: string;
  /** Distinguishes this session's processes from every other agentloop's. */
  private readonly token = randomBytes(6).toString("hex");
  private cwd: string;
  private tempDir: string | null = null;
  private startupFile: string | null = null;
  /** Started with the first command: a session that runs none leaves nothing to end. */
  private reaper: Reaper | null = null;
  private calls = 0;
  /**
   * Directory records not in use. A command writes its final directory to a record of its
   * own; as commands run one at a time (read-only ones may overlap), one file, written again
   * by each, is nearly always enough, and no command creates or removes a file.
   */
  private readonly freeCwdSlots: number[] = [];
  private cwdSlots = 0;

  constructor(options: ShellSessionOptions) {
    this.root = resolve(options.root);
    this.cwd = this.root;
    this.baseEnv = buildCommandEnv(options.env ?? process.env, options);
    this.tempParent = options.tempParent ?? tmpdir();
  }

  prepare(): PreparedCall {
    this.reaper ??= startReaper(JOB_MARKER_VARIABLE, `${this.token}:`);
    const dir = this.temporaryDirectory();
    const id = ++this.calls;
    let lostDirectory: string | null = null;
    if (!isDirectory(this.cwd)) {
      lostDirectory = this.cwd;
      this.cwd = this.root;
    }
    const cwdSlot = this.freeCwdSlots.pop() ?? this.cwdSlots++;
    const marker = `${this.token}:${id}`;
    return {
      cwd: this.cwd,
      lostDirectory,
      env: {
        ...this.baseEnv,
        [JOB_MARKER_VARIABLE]: marker,
        // bash expands $BASH_ENV before reading it: a path with `$` or a backquote stays a path.
        BASH_ENV: this.startup(dir).replace(/[\\$`]/g, "\\$&"),
        [CWD_FILE_VARIABLE]: this.cwdFile(cwdSlot),
        PWD: this.cwd,
      },
      marker,
      fullOutputPath: join(dir, `output-${id}.txt`),
      cwdSlot,
    };
  }

  /**
   * The file bash reads ($BASH_ENV) before the command, so the command string runs exactly as
   * given (its line numbers and error messages unchanged); written once per session. It unsets
   * the variables it uses so that scripts the command runs do not read them, sends stderr into
   * stdout so both arrive in order, and records the final directory on exit, also after
   * `exit N` or a failing command, below the command's marker: a record left by an earlier
   * command, when this one was killed or replaced the trap, is then told apart. Both are
   * quoted into the trap when it is set, with `printf %q` (bash 3.2, macOS's /bin/bash, has it;
   * `\${var@Q}` needs bash 4.4), so the command cannot change them.
   */
  private startup(dir: string): string {
    if (this.startupFile) return this.startupFile;
    const path = join(dir, "startup.sh");
    writeFileSync(
      path,
      [
        `builtin printf -v ${TRAP_VARIABLE} '{ builtin echo %q; builtin pwd; } >| %q 2>/dev/null' "$${JOB_MARKER_VARIABLE}" "$${CWD_FILE_VARIABLE}"`,
        `trap "$${TRAP_VARIABLE}" EXIT`,
        `unset ${TRAP_VARIABLE} BASH_ENV ${CWD_FILE_VARIABLE}`,
        "exec 2>&1",
        "",
      ].join("\n"),
    );
    this.startupFile = path;
    return path;
  }

  /** Whether a call prepared earlier still runs where the next command would. */
  isCurrent(call: PreparedCall): boolean {
    return call.cwd === this.cwd && isDirectory(call.cwd);
  }

  /** Gives back what a prepared call held, for a call that never ran a command. */
  release(call: PreparedCall): void {
    this.freeCwdSlots.push(call.cwdSlot);
  }

  /** Takes over the directory the command ended in; returns it if it changed. */
  finish(call: PreparedCall): string | null {
    this.freeCwdSlots.push(call.cwdSlot);
    let record = "";
    try {
      record = readFileSync(this.cwdFile(call.cwdSlot), "utf8");
    } catch {
      // No command has written this record yet.
    }
    // Another command's record means this one was killed or replaced the EXIT trap: the
    // directory stays what it was.
    const written = `${call.marker}\n`;
    const ended = record.startsWith(written) ? record.slice(written.length, -1) : null;
    if (!ended || ended === this.cwd || !isDirectory(ended)) return null;
    this.cwd = ended;
    return ended;
  }

  /** Ends every process any command of this session left running, and removes its files. */
  async dispose(): Promise<void> {
    // Only markers, not process groups: once a group is empty its number may be reused.
    await killProcesses({ groups: [], markers: [`${this.token}:`] }, KILL_GRACE_MS);
    this.reaper?.stop();
    this.reaper = null;
    if (this.tempDir) rmSync(this.tempDir, { recursive: true, force: true });
    this.tempDir = null;
    this.startupFile = null;
  }

  private cwdFile(slot: number): string {
    return join(this.temporaryDirectory(), `cwd-${slot}`);
  }

  private temporaryDirectory(): string {
    this.tempDir ??= mkdtempSync(join(this.tempParent, "agentloop-bash-"));
    return this.tempDir;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

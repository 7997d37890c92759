// What a sandbox is to the rest of agentloop, whichever the platform's is (bubblewrap.ts on
// Linux, seatbelt.ts on macOS): a wrapper for a command's argv that keeps the promises of
// `auto` and `read-only`, proven by a trial run before the first command, and never skipped.

export interface SandboxOptions {
  workspace: string;
  /** False: nothing is writable, not even the workspace (read-only mode). */
  writable: boolean;
  allowNetwork: boolean;
  /**
   * A directory of the host, outside /tmp, that the command may always write to (the bash tool
   * keeps its files there) and where its temporary files go: /tmp inside bubblewrap, $TMPDIR
   * under Seatbelt.
   */
  tmpDir: string;
  /**
   * Lets commands write the git directory of the workspace's repository (the person's
   * `"sandbox": {"writableGitDir": true}`, or a batch clone of agentloop's own): by default it
   * stays read-only even where the workspace is writable, since a repository's git config
   * names commands (core.fsmonitor, hooks, filters) that git runs outside the sandbox later.
   */
  writableGitDir?: boolean;
  /** Whose credentials are hidden; defaults to the user's home. */
  home?: string;
  /** The bubblewrap program; defaults to `bwrap` on the PATH. */
  bwrap?: string;
  /** The Seatbelt program; defaults to /usr/bin/sandbox-exec, not one the PATH may replace. */
  sandboxExec?: string;
}

export interface Sandbox {
  /** Turns the argv of a command into the argv that runs it inside the sandbox. */
  wrap(argv: string[], context: { cwd: string }): string[];
  /**
   * Whether every process of a command ends with its shell (bubblewrap's PID namespace); if
   * not (Seatbelt), the bash tool ends what the command left running when its shell exits.
   */
  endsLeftovers: boolean;
}

/**
 * The trial run's verdict. Started, it names the protections this installation could add
 * beyond the ones every supported version has (bubblewrap's `--disable-userns`).
 */
export type SandboxCheck = { ok: true; features: string[] } | { ok: false; reason: string };

/** How the error of a sandbox that failed its trial run begins (a batch retries those). */
export const SANDBOX_CANNOT_START = "The sandbox cannot start";

/** The way out that every refusal offers. */
export const OTHER_MODES =
  "choose another mode with --permission-mode ask or --dangerously-skip-permissions";

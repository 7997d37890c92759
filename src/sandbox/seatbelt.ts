// The macOS sandbox, Seatbelt: `sandbox-exec` runs the command under a profile agentloop writes
// for it, keeping bubblewrap's promises where macOS allows. Reads are allowed except the
// credentials; writes only in the workspace (its repository's git directory aside) and the
// session's scratch directory, where TMPDIR points (/tmp is not writable); no network unless allowed, and then not the sockets of
// daemons that control the host (Docker, colima, OrbStack). The profile holds no path of its
// own: every path is a parameter (-D), so nothing in a path can change the profile, and each is
// given in the form the kernel matches, links resolved (/private/tmp, not /tmp).
//
// Seatbelt has no PID namespace: what a command leaves running is found by its marker and ended
// when its shell exits (`endsLeftovers`), and by the session's reaper if agentloop is killed.

import { homedir } from "node:os";
import { join } from "node:path";
import { repositoryGitPaths } from "../core/git-directory.js";
import { HIDDEN_FROM_COMMANDS } from "./hidden-paths.js";
import { realTarget } from "./real-path.js";
import {
  OTHER_MODES,
  SANDBOX_CANNOT_START,
  type Sandbox,
  type SandboxCheck,
  type SandboxOptions,
} from "./sandbox.js";
import { tryStarting } from "./trial-run.js";

/** Sockets under the home directory and in /var/run that give control of a daemon outside. */
const HOME_SOCKETS = [".docker/run", ".colima", ".orbstack", ".lima"];
const SYSTEM_SOCKETS = ["/var/run/docker.sock"];

export interface SeatbeltInput {
  writable: boolean;
  allowNetwork: boolean;
  /** Every path below in canonical form: absolute, links resolved. */
  workspace: string;
  scratch: string;
  /** The git state of the workspace's repository (its `.git`, git directory, shared one). */
  gitPaths: readonly string[];
  /** Whether those may be written (where the workspace may be). */
  writableGitDir: boolean;
  hidden: readonly string[];
  sockets: readonly string[];
}

export interface SeatbeltProfile {
  /** The profile text, for `sandbox-exec -p`. */
  profile: string;
  /** The values of its parameters, for `sandbox-exec -D NAME=value`. */
  parameters: Record<string, string>;
}

/**
 * System services ordinary programs ask for through Mach: user and group names (`id`, `git`,
 * `ls -l`), notifications and the system log, which libSystem uses at start.
 */
const SYSTEM_SERVICES = [
  "com.apple.system.opendirectoryd.libinfo",
  "com.apple.system.notification_center",
  "com.apple.system.logger",
  "com.apple.logd",
];

/** With the network: name resolution and the certificate checks of TLS. */
const NETWORK_SERVICES = [
  "com.apple.dnssd.service",
  "com.apple.trustd",
  "com.apple.trustd.agent",
  "com.apple.SecurityServer",
];

/** The profile for one command, and its parameters. A pure function of its input. */
export function seatbeltProfile(input: SeatbeltInput): SeatbeltProfile {
  const parameters: Record<string, string> = {};
  const parameter = (name: string, path: string) => {
    parameters[name] = path;
    return `(param "${name}")`;
  };
  const writable = [
    ...(input.writable ? [`(subpath ${parameter("WORKSPACE", input.workspace)})`] : []),
    `(subpath ${parameter("SCRATCH", input.scratch)})`,
  ];
  const git = input.gitPaths.map((path, i) => `(subpath ${parameter(`GIT_${i}`, path)})`);
  const gitWritable = input.writable && input.writableGitDir;
  if (gitWritable) writable.push(...git);
  const hidden = input.hidden.map((path, i) => `(subpath ${parameter(`HIDDEN_${i}`, path)})`);
  const lines = [
    "(version 1)",
    "; agentloop's sandbox for one command. Every path is a parameter.",
    "(deny default)",
    "",
    "; Running programs: starting processes, and signalling and inspecting its own.",
    "(allow process-exec process-fork)",
    "(allow signal process-info* (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow ipc-posix-sem ipc-posix-shm)",
    `(allow mach-lookup ${names(SYSTEM_SERVICES)})`,
    "",
    "; Reading: everything but the credentials, denied at the end.",
    "(allow file-read*)",
    "",
    "; Writing: the scratch directory (TMPDIR) and, unless read-only, the workspace.",
    `(allow file-write* ${writable.join(" ")})`,
    "; The devices a shell writes to: `> /dev/null`, `>&2` spelled `> /dev/stderr`.",
    '(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/stdout") (literal "/dev/stderr") (subpath "/dev/fd"))',
  ];
  if (!gitWritable && git.length > 0) {
    lines.push(
      "",
      "; The repository's git state, read-only: its config names commands git runs outside.",
      `(deny file-write* ${git.join(" ")})`,
    );
  }
  if (input.allowNetwork) {
    const sockets = input.sockets.map((path, i) => `(subpath ${parameter(`SOCKET_${i}`, path)})`);
    lines.push(
      "",
      "; The network, allowed, but not the daemons whose sockets control the host.",
      "(allow network*)",
      `(allow mach-lookup ${names(NETWORK_SERVICES)})`,
      ...(sockets.length > 0 ? [`(deny network-outbound ${sockets.join(" ")})`] : []),
    );
  }
  lines.push(
    "",
    "; Credentials: neither read nor written, whatever allowed it above (the last rule decides).",
    `(deny file-read* file-write* ${hidden.join(" ")})`,
    "",
  );
  return { profile: lines.join("\n"), parameters };
}

function names(services: readonly string[]): string {
  return services.map((name) => `(global-name "${name}")`).join(" ");
}

export function createSeatbeltSandbox(options: SandboxOptions): Sandbox {
  const sandboxExec = options.sandboxExec ?? "/usr/bin/sandbox-exec";
  const home = options.home ?? homedir();
  return {
    endsLeftovers: false,
    wrap(argv) {
      // Resolved at every command: a link made since the last one is followed.
      const scratch = realTarget(options.tmpDir);
      const { profile, parameters } = seatbeltProfile({
        writable: options.writable,
        allowNetwork: options.allowNetwork,
        workspace: realTarget(options.workspace),
        scratch,
        gitPaths: repositoryGitPaths(options.workspace),
        writableGitDir: options.writableGitDir ?? false,
        hidden: HIDDEN_FROM_COMMANDS.map((path) => realTarget(join(home, path))),
        sockets: [
          ...HOME_SOCKETS.map((path) => realTarget(join(home, path))),
          ...SYSTEM_SOCKETS.map((path) => realTarget(path)),
        ],
      });
      const defines = Object.entries(parameters).map(([name, value]) => `-D${name}=${value}`);
      // sandbox-exec passes the environment on; TMPDIR is set inside, as bubblewrap does.
      const tmp = [`TMPDIR=${scratch}`];
      return [sandboxExec, "-p", profile, ...defines, "--", "/usr/bin/env", ...tmp, ...argv];
    },
  };
}

/** Starts the sandbox once with `true`; says why and what to do if it cannot start. */
export async function checkSeatbelt(options: SandboxOptions): Promise<SandboxCheck> {
  const trial = createSeatbeltSandbox(options).wrap(["true"], { cwd: options.workspace });
  const problem = await tryStarting(trial);
  if (problem === null) return { ok: true, features: [] };
  const advice = `sandbox-exec comes with macOS; where it is missing or refused, ${OTHER_MODES}.`;
  return { ok: false, reason: `${SANDBOX_CANNOT_START} (${problem}). ${advice}` };
}

// Runs commands inside bubblewrap (Linux): the whole file system read-only, the workspace and a
// private /tmp writable, the user's credentials hidden, no network unless allowed, and every
// process of the command gone when it ends. `wrap` only builds the argv; the bash tool spawns it.

import { spawn } from "node:child_process";
import { existsSync, lstatSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";

export interface SandboxOptions {
  workspace: string;
  /** False: nothing is writable, not even the workspace (read-only mode). */
  writable: boolean;
  allowNetwork: boolean;
  /**
   * A directory of the host, outside /tmp, that appears as /tmp inside (unless read-only) and at
   * its own path (always writable: the bash tool keeps its files there).
   */
  tmpDir: string;
  /** Whose credentials are hidden; defaults to the user's home. */
  home?: string;
  /** The bubblewrap program; defaults to `bwrap` on the PATH. */
  bwrap?: string;
}

export interface Sandbox {
  /** Turns the argv of a command into the argv that runs it inside the sandbox. */
  wrap(argv: string[], context: { cwd: string }): string[];
}

/** Credentials and keys under the home directory that commands never see. */
export const HIDDEN_FROM_COMMANDS = [
  ".ssh",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".config/hub",
  ".gnupg",
  ".docker/config.json",
  ".kube",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".pgpass",
  ".vault-token",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".gem/credentials",
  ".terraform.d/credentials.tfrc.json",
  ".password-store",
  ".local/share/keyrings",
];

/** Sockets that reach a daemon outside: the Docker socket gives root on the host. */
const HOST_SOCKETS = ["/run/docker.sock", "/var/run/docker.sock", "/run/user"];

export function createSandbox(options: SandboxOptions): Sandbox {
  const workspace = resolve(options.workspace);
  const home = resolve(options.home ?? homedir());
  const bwrap = options.bwrap ?? "bwrap";

  // /tmp is replaced and, without network, so is /run: what was there is hidden already.
  const replaced = options.allowNetwork ? ["/tmp"] : ["/tmp", "/run"];
  const visible = (path: string) =>
    isWithin(workspace, path) || !replaced.some((root) => isWithin(root, path) || root === path);

  function hide(paths: string[]): string[] {
    const args: string[] = [];
    for (const path of paths) {
      if (!visible(path) || !existsSync(path)) continue;
      if (lstatSync(path).isDirectory()) args.push("--tmpfs", path);
      else args.push("--ro-bind", "/dev/null", path);
    }
    return args;
  }

  return {
    wrap(argv, { cwd }) {
      return [
        bwrap,
        "--die-with-parent",
        "--new-session",
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        ...(options.allowNetwork ? [] : ["--unshare-net"]),
        // Root inside would otherwise keep CAP_SYS_ADMIN and could remount / read-write.
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        ...(options.allowNetwork ? [] : ["--tmpfs", "/run"]),
        ...(options.writable ? ["--bind", options.tmpDir, "/tmp"] : ["--tmpfs", "/tmp"]),
        // Also at its own path, so paths the tool reports (full outputs) are the same inside.
        "--bind",
        options.tmpDir,
        options.tmpDir,
        options.writable ? "--bind" : "--ro-bind",
        workspace,
        workspace,
        ...hide(HIDDEN_FROM_COMMANDS.map((path) => join(home, path))),
        ...(options.allowNetwork ? hide(HOST_SOCKETS) : []),
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--chdir",
        cwd,
        "--",
        ...argv,
      ];
    },
  };
}

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

export type SandboxCheck = { ok: true } | { ok: false; reason: string };

const CHECK_TIMEOUT_MS = 10_000;

/** How the error of a sandbox that failed its trial run begins (a batch retries those). */
export const SANDBOX_CANNOT_START = "The sandbox cannot start";

/** Starts the sandbox once with `true` to prove it works here; says why and what to do if not. */
export async function checkSandbox(options: SandboxOptions): Promise<SandboxCheck> {
  const advice =
    "Install bubblewrap (for example `apt-get install bubblewrap`), or choose another mode with --permission-mode ask or --dangerously-skip-permissions.";
  if (process.platform !== "linux") {
    return {
      ok: false,
      reason: `The sandbox needs Linux with bubblewrap, and this is ${process.platform}. Choose another mode with --permission-mode ask or --dangerously-skip-permissions.`,
    };
  }
  const [program, ...args] = createSandbox(options).wrap(["true"], {
    cwd: resolve(options.workspace),
  });
  const problem = await new Promise<string | null>((done) => {
    const child = spawn(program as string, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), CHECK_TIMEOUT_MS);
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      done(error.code === "ENOENT" ? `${program} is not installed` : error.message);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) done(null);
      else
        done(stderr.trim().split("\n")[0] || `bwrap ended with ${signal ?? `exit code ${code}`}`);
    });
  });
  if (problem === null) return { ok: true };
  return { ok: false, reason: `${SANDBOX_CANNOT_START} (${problem}). ${advice}` };
}

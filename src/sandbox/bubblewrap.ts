// The Linux sandbox, bubblewrap: the whole file system read-only, the workspace and a private
// /tmp writable but for the git directory of its repository, the user's credentials hidden, no network unless allowed, no nested user
// namespaces where this bubblewrap can forbid them, and every process of the command gone when
// it ends (a PID namespace). `wrap` only builds the argv; the bash tool spawns it.

import { execFile, execFileSync } from "node:child_process";
import { existsSync, lstatSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { repositoryGitPaths } from "../core/git-directory.js";
import { HIDDEN_FROM_COMMANDS } from "./hidden-paths.js";
import {
  OTHER_MODES,
  SANDBOX_CANNOT_START,
  type Sandbox,
  type SandboxCheck,
  type SandboxOptions,
} from "./sandbox.js";
import { tryStarting } from "./trial-run.js";

/** Sockets that reach a daemon outside: the Docker socket gives root on the host. */
const HOST_SOCKETS = ["/run/docker.sock", "/var/run/docker.sock", "/run/user"];

/**
 * Options newer than the oldest bubblewrap we run on (0.4), used where the installed one has
 * them. `--disable-userns` (0.8) keeps a command from making a user namespace of its own, in
 * which it would be root again, with the kernel's namespace code exposed to it.
 */
const OPTIONAL_OPTIONS = ["--disable-userns"];

/** The optional options each bubblewrap program has, from its --help; asked once per program. */
const optionsOf = new Map<string, string[]>();

function optionsIn(help: string): string[] {
  return OPTIONAL_OPTIONS.filter((option) => new RegExp(`^\\s*${option}\\s`, "m").test(help));
}

/** Asks without blocking: the trial run does, while the rest of start-up goes on. */
function detectOptions(bwrap: string): Promise<string[]> {
  const known = optionsOf.get(bwrap);
  if (known) return Promise.resolve(known);
  return new Promise((resolve) => {
    execFile(bwrap, ["--help"], (_, stdout) => {
      const found = optionsIn(`${stdout ?? ""}`);
      optionsOf.set(bwrap, found);
      resolve(found);
    });
  });
}

/** Asks at once (a few ms), for a sandbox made without a trial run first. */
function optionsNow(bwrap: string): string[] {
  let found = optionsOf.get(bwrap);
  if (found) return found;
  try {
    found = optionsIn(execFileSync(bwrap, ["--help"], { encoding: "utf8", stdio: "pipe" }));
  } catch {
    // Not installed: the command's own start says so.
    found = [];
  }
  optionsOf.set(bwrap, found);
  return found;
}

export function createBubblewrapSandbox(options: SandboxOptions): Sandbox {
  const workspace = resolve(options.workspace);
  const home = resolve(options.home ?? homedir());
  const bwrap = options.bwrap ?? "bwrap";
  const optional = optionsNow(bwrap);

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
    endsLeftovers: true,
    wrap(argv, { cwd }) {
      return [
        bwrap,
        "--die-with-parent",
        "--new-session",
        "--unshare-user",
        ...optional,
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
        // After the workspace, which it narrows; found at each command, as .git may be new.
        ...bindEach(
          repositoryGitPaths(workspace),
          options.writable && options.writableGitDir ? "--bind" : "--ro-bind",
        ),
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

function bindEach(paths: string[], how: "--bind" | "--ro-bind"): string[] {
  return paths.flatMap((path) => [how, path, path]);
}

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** Starts the sandbox once with `true`; says why and what to do if it cannot start. */
export async function checkBubblewrap(options: SandboxOptions): Promise<SandboxCheck> {
  const features = await detectOptions(options.bwrap ?? "bwrap");
  const trial = createBubblewrapSandbox(options).wrap(["true"], {
    cwd: resolve(options.workspace),
  });
  const problem = await tryStarting(trial);
  if (problem === null) return { ok: true, features };
  const advice = `Install bubblewrap (for example \`apt-get install bubblewrap\`), or ${OTHER_MODES}.`;
  return { ok: false, reason: `${SANDBOX_CANNOT_START} (${problem}). ${advice}` };
}

import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxOptions } from "../src/sandbox/sandbox.js";
import { checkSandbox, createSandbox } from "../src/sandbox/select.js";
import { runWrapped } from "./support/run-wrapped.js";

// The fake home lives outside /tmp: the sandbox replaces /tmp, which would hide it for the
// wrong reason.
const fakeHome = mkdtempSync("/var/tmp/agentloop-home-");
mkdirSync(join(fakeHome, ".ssh"));
writeFileSync(join(fakeHome, ".ssh", "id_ed25519"), "PRIVATE KEY MATERIAL");
writeFileSync(join(fakeHome, ".netrc"), "machine example.com password hunter2hunter2");
writeFileSync(join(fakeHome, "notes.txt"), "not a secret");

function options(overrides: Partial<SandboxOptions> = {}): SandboxOptions {
  return {
    workspace: mkdtempSync(join(tmpdir(), "agentloop-ws-")),
    writable: true,
    allowNetwork: false,
    tmpDir: mkdtempSync(join(tmpdir(), "agentloop-sandbox-tmp-")),
    home: fakeHome,
    ...overrides,
  };
}

describe.runIf(process.platform === "linux")("the bubblewrap sandbox", () => {
  let server: Server;
  let port = 0;

  beforeAll(async () => {
    server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(fakeHome, { recursive: true, force: true });
  });

  it("starts here, naming --disable-userns where this bubblewrap has it", async () => {
    const has = execFileSync("bwrap", ["--help"], { encoding: "utf8" }).includes(
      "--disable-userns",
    );
    expect(await checkSandbox(options())).toEqual({
      ok: true,
      features: has ? ["--disable-userns"] : [],
    });
  });

  it("says why and what to do when bubblewrap is missing", async () => {
    const check = await checkSandbox(options({ bwrap: "/nonexistent/bwrap" }));
    expect(check).toEqual({
      ok: false,
      reason:
        "The sandbox cannot start (/nonexistent/bwrap is not installed). Install bubblewrap (for example `apt-get install bubblewrap`), or choose another mode with --permission-mode ask or --dangerously-skip-permissions.",
    });
  });

  it("keeps a command from making a user namespace of its own, where bubblewrap can", async (context) => {
    const opts = options();
    const check = await checkSandbox(opts);
    // Only meaningful where this bubblewrap can forbid it and the host itself allows it.
    const hostAllows = spawnSync("unshare", ["-U", "true"]).status === 0;
    if (!check.ok || !check.features.includes("--disable-userns") || !hostAllows) context.skip();
    const run = await runWrapped(createSandbox(opts), "unshare -U true", opts.workspace);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("unshare failed");
  });

  it("leaves --disable-userns out for a bubblewrap that does not have it", async () => {
    const older = join(mkdtempSync(join(tmpdir(), "agentloop-old-bwrap-")), "bwrap");
    // The real bubblewrap, but with a --help of a version before 0.8.
    writeFileSync(
      older,
      '#!/bin/sh\nif [ "$1" = --help ]; then echo "    --unshare-user  Create new user namespace"; exit 0; fi\nexec bwrap "$@"\n',
      { mode: 0o755 },
    );
    const opts = options({ bwrap: older });
    expect(await checkSandbox(opts)).toEqual({ ok: true, features: [] });
    expect(createSandbox(opts).wrap(["true"], { cwd: opts.workspace })).not.toContain(
      "--disable-userns",
    );
  });

  it("lets a command write inside the workspace", async () => {
    const opts = options();
    const run = await runWrapped(createSandbox(opts), "echo made > made.txt", opts.workspace);
    expect(run.code).toBe(0);
    expect(readFileSync(join(opts.workspace, "made.txt"), "utf8")).toBe("made\n");
  });

  it("refuses a write outside the workspace", async () => {
    const opts = options();
    const outside = join(fakeHome, "planted.txt");
    const run = await runWrapped(createSandbox(opts), `echo x > ${outside}`, opts.workspace);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("Read-only file system");
    expect(existsSync(outside)).toBe(false);
  });

  it("gives commands a private /tmp that lands in the sandbox's temp dir", async () => {
    const opts = options();
    const run = await runWrapped(createSandbox(opts), "echo t > /tmp/scratch.txt", opts.workspace);
    expect(run.code).toBe(0);
    expect(readFileSync(join(opts.tmpDir, "scratch.txt"), "utf8")).toBe("t\n");
  });

  it("makes nothing writable in read-only mode, not even the workspace", async () => {
    const opts = options({ writable: false });
    const run = await runWrapped(createSandbox(opts), "echo x > made.txt", opts.workspace);
    expect(run.output).toContain("Read-only file system");
    expect(existsSync(join(opts.workspace, "made.txt"))).toBe(false);
  });

  it("keeps root inside from remounting the file system read-write", async () => {
    const opts = options();
    const outside = join(fakeHome, "after-remount.txt");
    const script = `mount -o remount,rw / ; echo x > ${outside}`;
    const run = await runWrapped(createSandbox(opts), script, opts.workspace);
    expect(run.output).toContain("Read-only file system");
    expect(existsSync(outside)).toBe(false);
  });

  it("hides ~/.ssh and ~/.netrc but not the rest of the home directory", async () => {
    const opts = options();
    const script = `cat ${fakeHome}/.ssh/id_ed25519; cat ${fakeHome}/.netrc; cat ${fakeHome}/notes.txt`;
    const run = await runWrapped(createSandbox(opts), script, opts.workspace);
    expect(run.output).not.toContain("PRIVATE KEY MATERIAL");
    expect(run.output).not.toContain("hunter2");
    expect(run.output).toContain("No such file or directory");
    expect(run.output).toContain("not a secret");
  });

  const connect = `exec 3<>/dev/tcp/127.0.0.1/PORT && head -1 <&3`;

  it("cannot connect to a server on 127.0.0.1 without network access", async () => {
    const opts = options();
    const run = await runWrapped(
      createSandbox(opts),
      connect.replace("PORT", `${port}`),
      opts.workspace,
    );
    expect(run.code).not.toBe(0);
    expect(run.output).not.toContain("hello from the host");
  });

  it("connects to a server on 127.0.0.1 when the network is allowed", async () => {
    const opts = options({ allowNetwork: true });
    const run = await runWrapped(
      createSandbox(opts),
      connect.replace("PORT", `${port}`),
      opts.workspace,
    );
    expect(run.output).toContain("hello from the host");
    expect(run.code).toBe(0);
  });

  it("leaves no process behind when the command ends", async () => {
    const opts = options();
    const marker = `agentloop-survivor-${process.pid}-${Date.now()}`;
    // Background, disowned, and in a new session: the usual ways to outlive a shell.
    const script = [
      `(exec -a ${marker} sleep 60) &`,
      `nohup bash -c 'exec -a ${marker} sleep 61' >/dev/null 2>&1 &`,
      `setsid bash -c 'exec -a ${marker} sleep 62' &`,
      "disown -a; echo started",
    ].join("\n");
    const run = await runWrapped(createSandbox(opts), script, opts.workspace);
    expect(run.output).toContain("started");
    // The kernel kills them as the sandbox's first process ends; one can take a moment to go.
    expect(await goneWithin(1000, marker)).toEqual([]);
  });
});

async function goneWithin(ms: number, marker: string): Promise<string[]> {
  const deadline = Date.now() + ms;
  let left = processesNamed(marker);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = processesNamed(marker);
  }
  return left;
}

function processesNamed(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (commandLine.includes(marker)) found.push(`${pid}: ${commandLine}`);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

// Which sandbox each platform gets, and what each refusal says, with the platform injected:
// a Mac's sandbox-exec is missing here, which is one of the refusals.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SandboxOptions } from "../src/sandbox/sandbox.js";
import { checkSandbox, createSandbox } from "../src/sandbox/select.js";

const OTHER_MODES =
  "choose another mode with --permission-mode ask or --dangerously-skip-permissions";

function options(overrides: Partial<SandboxOptions> = {}): SandboxOptions {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-platforms-"));
  return { workspace: dir, writable: true, allowNetwork: false, tmpDir: dir, ...overrides };
}

describe("the sandbox of each platform", () => {
  it("is bubblewrap on Linux and sandbox-exec on macOS", () => {
    const opts = options();
    expect(createSandbox(opts, "linux").wrap(["true"], { cwd: opts.workspace })[0]).toBe("bwrap");
    expect(createSandbox(opts, "darwin").wrap(["true"], { cwd: opts.workspace })[0]).toBe(
      "/usr/bin/sandbox-exec",
    );
  });

  it("on macOS leaves the ending of a command's leftovers to the bash tool: no PID namespace", () => {
    expect(createSandbox(options(), "linux").endsLeftovers).toBe(true);
    expect(createSandbox(options(), "darwin").endsLeftovers).toBe(false);
  });

  it("is refused on any other system, in one sentence with the way out", async () => {
    expect(await checkSandbox(options(), "win32")).toEqual({
      ok: false,
      reason: `The sandbox needs Linux with bubblewrap or macOS with sandbox-exec, and this is win32. C${OTHER_MODES.slice(1)}.`,
    });
  });

  it("is refused on macOS when sandbox-exec is missing", async () => {
    expect(await checkSandbox(options(), "darwin")).toEqual({
      ok: false,
      reason: `The sandbox cannot start (/usr/bin/sandbox-exec is not installed). sandbox-exec comes with macOS; where it is missing or refused, ${OTHER_MODES}.`,
    });
  });

  it("is refused on macOS when sandbox-exec refuses the profile, with its own words", async () => {
    const refusing = join(mkdtempSync(join(tmpdir(), "agentloop-sandbox-exec-")), "sandbox-exec");
    writeFileSync(
      refusing,
      "#!/bin/sh\necho 'sandbox-exec: sandbox_apply: Operation not permitted' >&2\nexit 71\n",
      { mode: 0o755 },
    );
    expect(await checkSandbox(options({ sandboxExec: refusing }), "darwin")).toEqual({
      ok: false,
      reason: `The sandbox cannot start (sandbox-exec: sandbox_apply: Operation not permitted). sandbox-exec comes with macOS; where it is missing or refused, ${OTHER_MODES}.`,
    });
  });

  it("starts on macOS when sandbox-exec runs the command", async () => {
    // A stand-in that runs what follows `--`, as sandbox-exec does once the profile applies.
    const passing = join(mkdtempSync(join(tmpdir(), "agentloop-sandbox-exec-")), "sandbox-exec");
    writeFileSync(passing, '#!/bin/sh\nwhile [ "$1" != -- ]; do shift; done\nshift\nexec "$@"\n', {
      mode: 0o755,
    });
    expect(await checkSandbox(options({ sandboxExec: passing }), "darwin")).toEqual({
      ok: true,
      features: [],
    });
  });
});

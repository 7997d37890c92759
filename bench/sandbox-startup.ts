// Bubblewrap's own start-up as the sandbox runs it: the same trivial command spawned with the
// sandbox's argv and without, the difference of the medians. A turn in `auto` cannot be faster
// than the bare script's turn plus this.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox } from "../src/sandbox/select.js";
import { median } from "./report.js";

const RUNS = 30;

export async function sandboxStartupMs(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-bench-bwrap-"));
  try {
    const sandbox = createSandbox({
      workspace: dir,
      writable: true,
      allowNetwork: false,
      tmpDir: dir,
    });
    const plain = ["bash", "--noprofile", "--norc", "-c", "true"];
    const wrapped = sandbox.wrap(plain, { cwd: dir });
    const times = { plain: [] as number[], wrapped: [] as number[] };
    // Interleaved, so that the machine's load falls on both alike; the first pair warms caches.
    for (let run = 0; run <= RUNS; run++) {
      const plainMs = await timeToExit(plain, dir);
      const wrappedMs = await timeToExit(wrapped, dir);
      if (run === 0) continue;
      times.plain.push(plainMs);
      times.wrapped.push(wrappedMs);
    }
    return median(times.wrapped) - median(times.plain);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timeToExit([file, ...args]: string[], cwd: string): Promise<number> {
  const startedAt = performance.now();
  const child = spawn(file as string, args, { cwd, stdio: "ignore" });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("exit", resolve);
    child.once("error", reject);
  });
  if (code !== 0) throw new Error(`${file} ${args.join(" ")} ended with ${code}`);
  return performance.now() - startedAt;
}

// Helpers for tests that run the real bash tool: a tool in a fresh directory, a call that also
// measures how long it took, a look for the processes a command started, and a wait for a
// condition (such as those processes being gone).

import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { type BashInput, type BashOptions, createBashTool } from "../../src/tools/bash.js";
import type { Tool, ToolOutput } from "../../src/tools/tool.js";

export type BashTool = Tool<BashInput>;

const tools: BashTool[] = [];
const workspaces: string[] = [];

// Every tool a test creates is disposed after it, so no test leaves processes behind.
afterEach(async () => {
  await Promise.all(tools.splice(0).map((tool) => tool.dispose?.()));
  for (const dir of workspaces.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function workspace(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "agentloop-workspace-")));
  workspaces.push(dir);
  return dir;
}

export function bashTool(options: Partial<BashOptions> = {}): BashTool {
  const tool = createBashTool({ cwd: workspace(), ...options });
  tools.push(tool);
  return tool;
}

export async function run(
  tool: BashTool,
  command: string,
  timeout = 10,
  signal = new AbortController().signal,
): Promise<ToolOutput & { ms: number }> {
  const started = Date.now();
  const output = await tool.run({ command, timeout }, { signal });
  return { ...output, ms: Date.now() - started };
}

/** A `sleep` no other test uses, so `pgrep -f` finds exactly this test's processes. */
export function uniqueSleep(): { command: string; pattern: string } {
  const seconds = `${300 + Math.floor(Math.random() * 600)}.${process.pid}${Math.floor(Math.random() * 1e6)}`;
  return { command: `sleep ${seconds}`, pattern: `sleep ${seconds.replace(".", "\\.")}` };
}

/** PIDs of running processes whose command line matches `pattern`. */
export function pgrep(pattern: string): number[] {
  try {
    const out = execFileSync("pgrep", ["-f", pattern], { encoding: "utf8" });
    return out.split("\n").filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** Waits until `condition` holds, checking every 50 ms; fails naming `what` after 10 s. */
export async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Still not so after 10 s: ${what}`);
}

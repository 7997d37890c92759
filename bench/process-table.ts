// Benchmark: the process lookup that follows every command, from each process table: /proc
// (Linux) and one `ps` snapshot (macOS's table, run here with procps). /proc reads only the
// command's own tree and the orphans adopted since it began; `ps` lists every process on the
// machine, so both are also shown with 2,000 unrelated processes running.
// Run: npx tsx bench/process-table.ts

import { spawn } from "node:child_process";
import { once } from "node:events";
import { procTable } from "../src/tools/proc-table.js";
import type { ProcessTable } from "../src/tools/process-table.js";
import { psTable } from "../src/tools/ps-table.js";
import { startIdleProcesses } from "./idle-processes.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

const COMMANDS = 30;
const IDLE_PROCESSES = 2000;
/** About what the /proc lookup cost before the seam: a few reads per command. */
const PROC_TARGET_MS = 1;
/**
 * Mostly ps's own start and reading (about 13 ms here): well under the 40-60 ms per command
 * that made sandbox-runtime too slow, and about bubblewrap's own start-up (11-12 ms).
 */
const PS_TARGET_MS = 25;

/** The lookup after a command that left a process in the background, in ms. */
async function lookupMs(table: ProcessTable): Promise<number> {
  const marker = `bench-${process.pid}-${Math.random()}`;
  const child = spawn("bash", ["-c", "sleep 5 & exit"], {
    detached: true,
    env: { ...process.env, AGENTLOOP_JOB: marker },
    stdio: "ignore",
  });
  const startedSince = child.pid === undefined ? undefined : table.startTimeOf(child.pid);
  await once(child, "exit");
  const query = {
    groups: new Set([child.pid as number]),
    markers: [{ bytes: Buffer.from(`AGENTLOOP_JOB=${marker}`), exact: true }],
    startedSince,
  };
  const started = performance.now();
  const found = table.find(query);
  const elapsed = performance.now() - started;
  for (const pid of found) process.kill(pid, "SIGKILL");
  if (found.length !== 1) throw new Error(`Expected the one background sleep, found ${found}`);
  return elapsed;
}

/** Median lookups of both tables, taken in turns so that other work falls on both alike. */
async function medians(): Promise<{ proc: number; ps: number }> {
  const proc: number[] = [];
  const ps: number[] = [];
  for (let i = 0; i < COMMANDS; i++) {
    proc.push(await lookupMs(procTable));
    ps.push(await lookupMs(psTable));
  }
  return { proc: median(proc), ps: median(ps) };
}

export async function processTableFigures(): Promise<Figure[]> {
  const quiet = await medians();
  const idle = await startIdleProcesses(IDLE_PROCESSES);
  let crowded: { proc: number; ps: number };
  try {
    crowded = await medians();
  } finally {
    idle.stop();
  }
  return [
    {
      name: "/proc table: lookup after a command, median",
      value: quiet.proc,
      unit: "ms",
      target: PROC_TARGET_MS,
    },
    {
      name: "ps table: lookup after a command, median",
      value: quiet.ps,
      unit: "ms",
      target: PS_TARGET_MS,
    },
    {
      name: `  /proc table, ${IDLE_PROCESSES} idle processes running`,
      value: crowded.proc,
      unit: "ms",
      target: PROC_TARGET_MS,
    },
    {
      name: `  ps table, ${IDLE_PROCESSES} idle processes running`,
      value: crowded.ps,
      unit: "ms",
      target: null,
    },
  ];
}

export const processTableBenchmark: Benchmark = {
  title: "Process table: the lookup after each command (/proc, ps)",
  figures: processTableFigures,
};

await runIfMain(processTableBenchmark, import.meta.url);

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { procTable } from "../src/tools/proc-table.js";
import type { ProcessQuery, ProcessTable } from "../src/tools/process-table.js";
import { chooseProcessTable, PROCESS_TABLE_VARIABLE } from "../src/tools/process-tree.js";
import { psTable } from "../src/tools/ps-table.js";
import { isAlive } from "./support/processes.js";

const MARKER = "AGENTLOOP_JOB";
const started: ChildProcess[] = [];
/** Process groups and processes that left them, ended after each test. */
const leftover: number[] = [];

afterEach(() => {
  for (const child of started.splice(0)) child.stdout?.destroy();
  for (const pid of leftover.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
});

/**
 * Runs `script` as a command would run (its own process group, the marker in its environment)
 * and waits for the PIDs it prints, one a line: the processes the tables must find.
 */
async function scripted(script: string, marker: string, lines: number) {
  const child = spawn("bash", ["-c", script], {
    detached: true,
    env: { ...process.env, [MARKER]: marker },
    stdio: ["ignore", "pipe", "inherit"],
  });
  started.push(child);
  const printed: number[] = [];
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    printed.push(Number(line));
    if (printed.length === lines) break;
  }
  leftover.push(-(child.pid as number), ...printed);
  return { leader: child.pid as number, printed };
}

function query(marker: string, groups: number[], startedSince?: number): ProcessQuery {
  return {
    groups: new Set(groups),
    markers: [{ bytes: Buffer.from(`${MARKER}=${marker}`), exact: true }],
    startedSince,
  };
}

const sorted = (pids: number[]) => [...pids].sort((a, b) => a - b);

// Each tree prints the PIDs of the processes that outlive the script's own reach; `wait` keeps
// the script alive where its children must still have it as their parent.
const trees: [string, string, number][] = [
  ["a child in the group", "sleep 300 & echo $!; wait", 1],
  ["a grandchild", "bash -c 'sleep 300 & echo $!; wait' & echo $!; wait", 2],
  ["a setsid daemon", "setsid sleep 300 & echo $!; wait", 1],
  [
    "a double fork into a new session, re-parented away",
    // Printed once the middle process has exited, so that both tables see the same tree.
    "pid=$(setsid bash -c 'sleep 300 >/dev/null & echo $!'); echo $pid; exec sleep 300",
    1,
  ],
  [
    "env -i under a setsid'd parent",
    "setsid bash -c 'env -i sleep 300 & echo $$; echo $!; wait' & wait",
    2,
  ],
];

// Linux's, where both tables exist (and `setsid` is a command).
describe.runIf(process.platform === "linux")("the ps process table and the /proc one", () => {
  it.each(trees)("find the same processes for %s", async (_, script, lines) => {
    const marker = `tables-${process.pid}-${Math.random()}`;
    const { leader, printed } = await scripted(script, marker, lines);
    const since = procTable.startTimeOf(leader);
    const fromProc = sorted(procTable.find(query(marker, [leader], since)));
    expect(sorted(procTable.find(query(marker, [leader])))).toEqual(fromProc);
    expect(sorted(psTable.find(query(marker, [leader])))).toEqual(fromProc);
    expect(fromProc).toEqual(expect.arrayContaining(printed));
  });

  it("find nothing of a process outside the group without the marker", async () => {
    const marker = `tables-${process.pid}-${Math.random()}`;
    const other = await scripted("sleep 300 & echo $!; wait", "someone else", 1);
    const ours = await scripted("sleep 300 & echo $!; wait", marker, 1);
    for (const table of [procTable, psTable]) {
      const found = table.find(query(marker, [ours.leader]));
      expect(found).toEqual(expect.arrayContaining(ours.printed));
      expect(found).not.toContain(other.printed[0]);
      expect(found).not.toContain(other.leader);
    }
  });

  it("find a marker given as a session's prefix, and not one that merely starts the same", async () => {
    const session = `prefix${process.pid}`;
    const ours = await scripted("sleep 300 & echo $!; wait", `${session}:7`, 1);
    const longer = await scripted("sleep 300 & echo $!; wait", `${session}0:7`, 1);
    const bySession: ProcessQuery = {
      groups: new Set(),
      markers: [{ bytes: Buffer.from(`${MARKER}=${session}:`), exact: false }],
    };
    for (const table of [procTable, psTable]) {
      const found = table.find(bySession);
      expect(found).toEqual(expect.arrayContaining([ours.leader, ...ours.printed]));
      expect(found).not.toContain(longer.leader);
    }
  });

  it("agree on which processes still run: not a zombie, not one that is gone", async () => {
    // The shell becomes a `sleep`, which never reaps the child that exits after it.
    const zombie = await scripted("(sleep 0.1) & echo $!; exec sleep 300", "z", 1);
    const alive = await scripted("sleep 300 & echo $!; wait", "a", 1);
    const dead = zombie.printed[0] as number;
    while (isAlive(dead)) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(existsSync(`/proc/${dead}`)).toBe(true);
    const pids = [dead, alive.printed[0] as number, 2 ** 22 + 1];
    for (const table of [procTable, psTable]) {
      expect(table.running(pids)).toEqual([alive.printed[0]]);
    }
    expect(psTable.running([])).toEqual([]);
  });
});

describe("the process table in use", () => {
  const tableFor = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv = {}): ProcessTable =>
    chooseProcessTable(platform, env);

  it("is /proc on Linux and ps on macOS, which has no /proc", () => {
    expect(tableFor("linux")).toBe(procTable);
    expect(tableFor("darwin")).toBe(psTable);
  });

  it("is ps on Linux when the tests force it", () => {
    expect(tableFor("linux", { [PROCESS_TABLE_VARIABLE]: "ps" })).toBe(psTable);
  });
});

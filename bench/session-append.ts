// What writing the session file costs per message, early and late in a 10,000-message session:
// appending must not get slower as the file grows (no rewriting, no re-reading).
//
//   npx tsx bench/session-append.ts

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "../src/core/messages.js";
import { openSessionWriter, SESSION_FORMAT_VERSION } from "../src/session/session-file.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

const MESSAGES = 10_000;
/** Each end of the session is judged on the median of this many appends. */
const WINDOW = 100;

/** The n-th message of a session that runs one command per turn, with a page of output. */
function message(n: number): Message {
  const id = `toolu_${Math.floor(n / 2)}`;
  return n % 2 === 0
    ? {
        role: "assistant",
        content: [
          { type: "text", text: `Step ${n}: list the sources.` },
          { type: "tool_use", id, name: "bash", input: { command: `ls -la src # ${n}` } },
        ],
      }
    : {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: id, content: "a line of output\n".repeat(60) },
        ],
      };
}

/** Milliseconds taken by each append of a MESSAGES-long session. */
function appendTimes(directory: string, id: string): number[] {
  const writer = openSessionWriter(directory, {
    type: "session",
    version: SESSION_FORMAT_VERSION,
    id,
    cwd: directory,
    model: "bench",
    provider: "anthropic",
    startedAt: new Date().toISOString(),
  });
  const times: number[] = [];
  try {
    for (let n = 0; n < MESSAGES; n += 1) {
      const next = message(n);
      const started = performance.now();
      writer.recordMessage(next);
      times.push(performance.now() - started);
    }
  } finally {
    writer.close();
  }
  return times;
}

export async function sessionAppendFigures(): Promise<Figure[]> {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-bench-session-"));
  try {
    appendTimes(directory, "warm-up"); // so that the early appends are not judged on the JIT
    const times = appendTimes(directory, "measured");
    const early = median(times.slice(0, WINDOW));
    const late = median(times.slice(-WINDOW));
    return [
      {
        name: `append a message, messages 1-${WINDOW}, median`,
        value: early,
        unit: "ms",
        target: 0.1,
      },
      {
        name: `append a message, messages ${MESSAGES - WINDOW + 1}-${MESSAGES}, median`,
        value: late,
        unit: "ms",
        target: 0.1,
      },
      // Flat means late appends cost what early ones do; a file rewritten per message would be
      // hundreds of times slower by the end.
      { name: "late append / early append", value: late / early, unit: "x", target: 2 },
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export const sessionAppendBenchmark: Benchmark = {
  title: "Session file, 10,000 messages",
  figures: sessionAppendFigures,
};

await runIfMain(sessionAppendBenchmark, import.meta.url);

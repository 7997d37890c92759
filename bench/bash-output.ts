// Benchmark: a command that prints 50 MB, run through the bash tool. The tool should keep up
// with a plain copy (`cat` of the same bytes to /dev/null) and hold memory flat while it
// captures, cleans and saves the output. Run: npx tsx bench/bash-output.ts

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBashTool } from "../src/tools/bash.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

const OUTPUT_BYTES = 50_000_000;
const RUNS = 7;
const MAX_RSS_GROWTH_MB = 64;
const MAX_SLOWDOWN = 2;

export async function bashOutputFigures(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-bench-"));
  const file = join(dir, "output.txt");
  // Made by a child process, so that this process's memory only shows the tool's own use.
  const make = `yes 'a line of benchmark output' | head -c ${OUTPUT_BYTES} > ${file}`;
  execFileSync("bash", ["-c", make]);
  const tool = createBashTool({ cwd: dir });
  const signal = new AbortController().signal;
  let sampling = false;
  let idleRss = 0;
  let peakRss = 0;
  const sampler = setInterval(() => {
    if (sampling) peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 1);

  const throughTool = async () => {
    sampling = true;
    const started = performance.now();
    const result = await tool.run({ command: `cat ${file}` }, { signal });
    const elapsed = performance.now() - started;
    sampling = false;
    if (!result.content.includes("50,000,000 bytes")) throw new Error(result.content);
    return elapsed;
  };

  try {
    await tool.run({ command: "true" }, { signal });
    idleRss = process.memoryUsage().rss;
    peakRss = idleRss;
    // Interleaved, so that a busy machine slows every side alike.
    const copy: number[] = [];
    const nodeRead: number[] = [];
    const throughTheTool: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      copy.push(await timeCommand(`cat ${file} > /dev/null`, "ignore"));
      nodeRead.push(await timeCommand(`cat ${file}`, "pipe"));
      throughTheTool.push(await throughTool());
    }
    const copyMs = median(copy);
    const nodeReadMs = median(nodeRead);
    const toolMs = median(throughTheTool);
    return [
      {
        name: `50 MB through the bash tool (${round(toolMs)} ms) / cat to /dev/null (${round(copyMs)} ms)`,
        value: toolMs / copyMs,
        unit: "x",
        target: MAX_SLOWDOWN,
      },
      // Context for the figure above: what reading a pipe costs Node before any of our work.
      {
        name: `  Node reading the same bytes from a pipe (${round(nodeReadMs)} ms) / cat`,
        value: nodeReadMs / copyMs,
        unit: "x",
        target: null,
      },
      {
        name: "peak RSS over idle while capturing 50 MB",
        value: (peakRss - idleRss) / 1e6,
        unit: "MB",
        target: MAX_RSS_GROWTH_MB,
      },
    ];
  } finally {
    clearInterval(sampler);
    await tool.dispose?.();
    rmSync(dir, { recursive: true, force: true });
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Wall time of a bash command whose output is ignored, or read by this process and dropped. */
function timeCommand(command: string, output: "ignore" | "pipe"): Promise<number> {
  const started = performance.now();
  const child = spawn("bash", ["--noprofile", "--norc", "-c", command], {
    stdio: ["ignore", output, "ignore"],
  });
  child.stdout?.resume();
  return new Promise((resolve) => child.on("close", () => resolve(performance.now() - started)));
}

export const bashOutputBenchmark: Benchmark = {
  title: "bash tool output (50 MB)",
  figures: bashOutputFigures,
};

await runIfMain(bashOutputBenchmark, import.meta.url);

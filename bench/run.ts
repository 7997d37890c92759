// `npm run bench`: every benchmark in turn, each figure beside its target, then one line saying
// how many met theirs. A missed target is printed (MISS) but does not fail the run, since a busy
// machine misses timing targets; a benchmark that crashes does fail it.

import { cpus, loadavg } from "node:os";
import { anthropicProviderBenchmark } from "./anthropic-provider.js";
import { bashOutputBenchmark } from "./bash-output.js";
import { batchBenchmark } from "./batch.js";
import { checkpointsBenchmark } from "./checkpoints.js";
import { cliBenchmark } from "./cli.js";
import { compactionBenchmark } from "./compaction.js";
import { firstRequestBenchmark } from "./first-request.js";
import { localModelBenchmark } from "./local-model.js";
import { loopOverheadBenchmark } from "./loop-overhead.js";
import { lspBenchmark } from "./lsp.js";
import { openAIProtocolsBenchmark } from "./openai-protocols.js";
import { permissionsBenchmark } from "./permissions.js";
import { processTableBenchmark } from "./process-table.js";
import { type Benchmark, meetsTarget, printFigures } from "./report.js";
import { sessionAppendBenchmark } from "./session-append.js";
import { viewerBenchmark } from "./viewer.js";

// The timing-sensitive CLI benchmark runs before the ones that load the machine most.
const benchmarks: Benchmark[] = [
  loopOverheadBenchmark,
  permissionsBenchmark,
  anthropicProviderBenchmark,
  sessionAppendBenchmark,
  firstRequestBenchmark,
  cliBenchmark,
  openAIProtocolsBenchmark,
  bashOutputBenchmark,
  processTableBenchmark,
  compactionBenchmark,
  batchBenchmark,
  localModelBenchmark,
  viewerBenchmark,
  checkpointsBenchmark,
  lspBenchmark,
];

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");
console.log(
  `agentloop benchmarks: Node ${process.version}, ${cpus().length} cores, load average ${load()}`,
);

let judged = 0;
let met = 0;
const crashed: string[] = [];
for (const benchmark of benchmarks) {
  try {
    const figures = await benchmark.figures();
    printFigures(benchmark.title, figures);
    for (const figure of figures) {
      if (figure.target === null) continue;
      judged += 1;
      if (meetsTarget(figure)) met += 1;
    }
  } catch (error) {
    crashed.push(benchmark.title);
    console.log(`\n${benchmark.title}\n  CRASHED: ${error instanceof Error ? error.stack : error}`);
  }
}

const crashes =
  crashed.length > 0 ? `; ${crashed.length} benchmark(s) crashed: ${crashed.join("; ")}` : "";
console.log(`\n${met} of ${judged} figures met their targets${crashes} (load average ${load()}).`);
if (crashed.length > 0) process.exitCode = 1;

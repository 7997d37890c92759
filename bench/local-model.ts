// The local provider on the tiny GGUF model of the tests (random weights, 0.5 MB): how long
// the engine and the model take to load, and how fast a reply streams. The tiny model measures
// agentloop's own overhead around llama.cpp; a real 4B model is some 100 times slower per token.
//
//   npx tsx bench/local-model.ts

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalProvider } from "../src/providers/local.js";
import { writeTinyModel } from "../test/support/tiny-model.js";
import { type Benchmark, type Figure, median, runIfMain } from "./report.js";

const TOKENS = 64;

export async function localModelFigures(): Promise<Figure[]> {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-bench-local-"));
  try {
    const modelPath = join(directory, "tiny.gguf");
    writeTinyModel(modelPath);
    const loadStarted = performance.now();
    const provider = await createLocalProvider({
      modelPath,
      model: "tiny.gguf",
      gpu: false,
      threads: 1,
      maxTokens: TOKENS,
    });
    const loadMs = performance.now() - loadStarted;
    const perToken: number[] = [];
    let firstTextMs = Number.NaN;
    for (let run = 0; run < 5; run += 1) {
      const started = performance.now();
      const stream = provider.stream({
        system: "You are a benchmark.",
        messages: [{ role: "user", content: `Count to ${run + 10}.` }],
        tools: [],
        signal: new AbortController().signal,
      });
      let step = await stream.next();
      if (run === 0) firstTextMs = performance.now() - started;
      while (!step.done) step = await stream.next();
      perToken.push((performance.now() - started) / step.value.usage.output_tokens);
    }
    await provider.dispose();
    return [
      {
        name: "engine + tiny model loaded, context ready",
        value: loadMs,
        unit: "ms",
        target: 1_500,
      },
      { name: "first streamed text, fresh prompt", value: firstTextMs, unit: "ms", target: 100 },
      {
        name: `time per token over ${TOKENS}-token replies, median`,
        value: median(perToken),
        unit: "ms",
        target: 5,
      },
      { name: "tokens per second", value: 1000 / median(perToken), unit: "tok/s", target: null },
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export const localModelBenchmark: Benchmark = {
  title: "Local model (tiny GGUF, CPU, 1 thread)",
  figures: localModelFigures,
};

await runIfMain(localModelBenchmark, import.meta.url);

// The loop's own work per turn, with a model and a tool that cost nothing: it must stay flat
// (not grow with the length of the history) and under a millisecond.

import { emptyUsage } from "../src/core/messages.js";
import { agentLoop, createLoopState } from "../src/loop.js";
import type { ModelReply, Provider, StreamEvent } from "../src/providers/provider.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { type Benchmark, type Figure, runIfMain } from "./report.js";

function instantModel(turns: number): Provider {
  let request = 0;
  return {
    name: "instant",
    model: "instant",
    async *stream(): AsyncGenerator<StreamEvent, ModelReply> {
      request += 1;
      const done = request >= turns;
      yield { type: "text_delta", text: "working" };
      return {
        message: {
          role: "assistant",
          content: done
            ? [{ type: "text", text: "done" }]
            : [{ type: "tool_use", id: `t${request}`, name: "noop", input: { step: request } }],
        },
        stopReason: done ? "end_turn" : "tool_use",
        rawStopReason: null,
        usage: emptyUsage(),
      };
    },
  };
}

const noop = createToolbox([
  {
    name: "noop",
    description: "does nothing",
    inputSchema: { type: "object", properties: { step: { type: "number" } } },
    run: async () => ({ content: "ok", isError: false }),
  },
]);

async function msPerTurn(turns: number): Promise<number> {
  const state = createLoopState([{ role: "user", content: "go" }]);
  const started = performance.now();
  const loop = agentLoop(state, {
    provider: instantModel(turns),
    toolbox: noop,
    system: "",
    maxTurns: turns + 1,
  });
  for await (const _event of loop);
  return (performance.now() - started) / turns;
}

export async function loopOverheadFigures(): Promise<Figure[]> {
  await msPerTurn(200); // warm up the JIT
  const figures: Figure[] = [];
  for (const turns of [10, 100, 1000]) {
    figures.push({
      name: `loop overhead per turn, ${turns} turns`,
      value: await msPerTurn(turns),
      unit: "ms",
      target: 1,
    });
  }
  return figures;
}

export const loopOverheadBenchmark: Benchmark = {
  title: "Loop overhead (scripted model, no-op tool)",
  figures: loopOverheadFigures,
};

await runIfMain(loopOverheadBenchmark, import.meta.url);

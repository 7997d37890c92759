// The transcript viewer on a 10,000-message session, in headless Chromium: how long the
// export takes to write, the page to load, one step to render and a slider jump to render.
// Run alone with `npx tsx bench/viewer.ts`, or through bench/run.ts via viewerFigures().

import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runViewCommand } from "../src/viewer/view-command.js";
import { launchChromium } from "../test/support/chromium.js";
import { syntheticSession } from "../test/support/synthetic-session.js";
import { type Benchmark, type Figure, percentile, runIfMain } from "./report.js";

const MESSAGES = 10_000;
const STEPS = 200;
const JUMPS = 30;

export async function viewerFigures(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-bench-viewer-"));
  try {
    return await measureViewer(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureViewer(dir: string): Promise<Figure[]> {
  writeFileSync(join(dir, "long.jsonl"), syntheticSession(MESSAGES));
  const exportPath = join(dir, "long.html");
  const exportOptions = { cwd: dir, sessionId: "long.jsonl", sessionsDir: dir, exportPath };
  await runViewCommand({ ...exportOptions, stdout: () => {} }); // bundles the page script once
  const exportStart = performance.now();
  await runViewCommand({ ...exportOptions, stdout: () => {} });
  const exportMs = performance.now() - exportStart;

  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(pathToFileURL(exportPath).href);
    await page.waitForSelector("body[data-ready=true]");
    const loadMs = await page.evaluate(
      () => performance.getEntriesByName("viewer-ready")[0]?.startTime ?? Number.NaN,
    );
    const stepMs = await page.evaluate(async (steps) => {
      const times: number[] = [];
      for (let i = 0; i < steps; i += 1) {
        const start = performance.now();
        document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
        void document.body.offsetHeight; // include the layout the step causes
        times.push(performance.now() - start);
        await new Promise((frame) => requestAnimationFrame(frame));
      }
      return times;
    }, STEPS);
    const jumpMs = await page.evaluate(async (jumps) => {
      const slider = document.getElementById("slider") as HTMLInputElement;
      const count = Number(slider.max);
      const times: number[] = [];
      for (let i = 0; i < jumps; i += 1) {
        const target = 1 + ((i * 7_919) % count);
        const start = performance.now();
        slider.value = String(target);
        slider.dispatchEvent(new Event("input", { bubbles: true }));
        // The slider renders in the next frame; this callback runs right after it.
        await new Promise((frame) => requestAnimationFrame(frame));
        void document.body.offsetHeight;
        times.push(performance.now() - start);
      }
      return times;
    }, JUMPS);
    const size = statSync(exportPath).size / 1e6;
    return [
      { name: "export of 10,000 messages to HTML", value: exportMs, unit: "ms", target: 1_000 },
      { name: "exported page size", value: size, unit: "MB", target: 20 },
      { name: "page load until the first step is shown", value: loadMs, unit: "ms", target: 2_000 },
      { name: `step, median of ${STEPS}`, value: percentile(stepMs, 0.5), unit: "ms", target: 16 },
      { name: "step, 95th percentile", value: percentile(stepMs, 0.95), unit: "ms", target: 50 },
      {
        name: `slider jump, 95th percentile of ${JUMPS}`,
        value: percentile(jumpMs, 0.95),
        unit: "ms",
        target: 200,
      },
    ];
  } finally {
    await browser.close();
  }
}

export const viewerBenchmark: Benchmark = {
  title: "Transcript viewer, 10,000 messages, headless Chromium",
  figures: viewerFigures,
};

await runIfMain(viewerBenchmark, import.meta.url);

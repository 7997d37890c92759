// Benchmarks print each figure beside its target, so a regression is visible at a glance.

import { pathToFileURL } from "node:url";

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The figure must stay at or below this; null for a reference shown only for comparison. */
  target: number | null;
}

export interface Benchmark {
  title: string;
  figures(): Promise<Figure[]>;
}

/** Runs the benchmark when its file is the one started (`npx tsx bench/<file>.ts`). */
export async function runIfMain(benchmark: Benchmark, moduleUrl: string): Promise<void> {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? "").href) return;
  printFigures(benchmark.title, await benchmark.figures());
}

export function meetsTarget(figure: Figure): boolean {
  return figure.target === null || figure.value <= figure.target;
}

export function printFigures(title: string, figures: Figure[]): boolean {
  console.log(`\n${title}`);
  for (const figure of figures) {
    const value = `${round(figure.value)} ${figure.unit}`.padStart(14);
    const verdict = figure.target === null ? "    " : meetsTarget(figure) ? "ok  " : "MISS";
    const target =
      figure.target === null
        ? "(for comparison)"
        : `(target <= ${round(figure.target)} ${figure.unit})`;
    console.log(`  ${verdict} ${figure.name.padEnd(62)} ${value}   ${target}`);
  }
  return figures.every(meetsTarget);
}

/** The value below which `fraction` of the values lie (0.5: the median). */
export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

export function median(values: number[]): number {
  return percentile(values, 0.5);
}

function round(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toFixed(4);
}

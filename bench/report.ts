// Benchmarks print each figure beside its target, so a regression is visible at a glance.

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The figure must stay at or below this. */
  target: number;
}

export function printFigures(title: string, figures: Figure[]): boolean {
  console.log(`\n${title}`);
  let allPass = true;
  for (const figure of figures) {
    const pass = figure.value <= figure.target;
    allPass &&= pass;
    const value = `${round(figure.value)} ${figure.unit}`.padStart(14);
    const target = `${round(figure.target)} ${figure.unit}`;
    console.log(
      `  ${pass ? "ok  " : "MISS"} ${figure.name.padEnd(58)} ${value}   (target <= ${target})`,
    );
  }
  return allPass;
}

function round(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toFixed(4);
}

// How many columns text takes at a terminal, and wrapping it there: string-width and
// wrap-ansi. Their top level builds an Intl.Segmenter and Unicode-property regular expressions,
// which cost 40-130 ms of a one-shot run's start-up on a loaded machine, so they are loaded
// only for a run with a terminal to write to: the CLI awaits `loadTextWidth` before it writes
// when stdout or stderr is one. Text is measured only for an output that is a terminal (see
// `columnsOf` in wrap.ts and the progress line, which draws only there), so a run whose
// outputs are pipes or files never needs them.

import type { Options as WrapOptions } from "wrap-ansi";

interface Measures {
  stringWidth: (text: string) => number;
  wrapAnsi: (text: string, columns: number, options?: WrapOptions) => string;
}

let measures: Measures | undefined;

/** Loads the measures; call it, and wait, before anything measures text for a terminal. */
export async function loadTextWidth(): Promise<void> {
  if (measures) return;
  const [width, wrap] = await Promise.all([import("string-width"), import("wrap-ansi")]);
  measures = { stringWidth: width.default, wrapAnsi: wrap.default };
}

function loaded(): Measures {
  if (!measures) throw new Error("Text was measured for a terminal before loadTextWidth().");
  return measures;
}

/** The columns `text` takes: a character of East Asian text takes two, escape sequences none. */
export function stringWidth(text: string): number {
  return loaded().stringWidth(text);
}

/** `text` wrapped to `columns`, escape sequences kept. */
export function wrapAnsi(text: string, columns: number, options?: WrapOptions): string {
  return loaded().wrapAnsi(text, columns, options);
}

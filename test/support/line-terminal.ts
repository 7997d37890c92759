// A readline on streams in memory, as on a terminal that is not a TTY: a test writes the lines
// a person would type, and reads all that was shown.

import { createInterface, type Interface } from "node:readline";
import { PassThrough } from "node:stream";

export interface LineTerminal {
  readline: Interface;
  /** What typed lines are written to. */
  input: PassThrough;
  /** Where readline and the question write. */
  output: PassThrough;
  shown(): string;
}

export function openLineTerminal(): LineTerminal {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk) => {
    shown += String(chunk);
  });
  const readline = createInterface({ input, output });
  return { readline, input, output, shown: () => shown };
}

// A cheap in-process tool whose input says how the call ends, so a random plan can choose
// every outcome a real tool has: output, empty output, an error, a throw, a slow run, or the
// user pressing Ctrl-C while it runs.

import { setTimeout as sleep } from "node:timers/promises";
import type { Tool, ToolOutput } from "../../src/tools/tool.js";

export type ProbeOutcome =
  | "ok"
  | "empty_ok"
  | "error"
  | "empty_error"
  | "throws"
  | "slow"
  | "interrupt";

export const PROBE = "probe";

/** `interrupt` is what the user's Ctrl-C does to the running turn. */
export function createProbeTool(interrupt: () => void): Tool {
  return {
    name: PROBE,
    description: "Ends the way its input says.",
    inputSchema: {
      type: "object",
      properties: { outcome: { type: "string" }, readOnly: { type: "boolean" } },
      required: ["outcome"],
    },
    isReadOnly: (input) => input.readOnly === true,
    async run(input, { signal }): Promise<ToolOutput> {
      const outcome = input.outcome as ProbeOutcome;
      switch (outcome) {
        case "ok":
          return { content: "probed", isError: false };
        case "empty_ok":
          return { content: "", isError: false };
        case "error":
          return { content: "the probe failed", isError: true };
        case "empty_error":
          return { content: "", isError: true };
        case "throws":
          throw new Error("the probe broke");
        case "slow":
          await sleep(1, undefined, { signal }).catch(() => {});
          return signal.aborted
            ? { content: "killed", isError: true }
            : { content: "slow but done", isError: false };
        case "interrupt":
          interrupt();
          return { content: "killed by Ctrl-C", isError: true };
      }
    },
  };
}

// What the rest of agentloop needs to know about the goal loop (s17), said once, here: the layer
// its folder sits in (scripts/check-layers.ts reads it from the session's list) and its flags,
// which the command line and --help read from there. It offers no tool: its judge is a tool-less
// request at the step before stopping. It imports only its flags' checks, so reading it loads
// nothing else of the chapter.

import { positiveInteger } from "../core/flag-checks.js";
import { goalCondition } from "./goal-options.js";

export const CHAPTER = {
  name: "goal",
  /** Its folder is in the layer of this part: both act on the session from above it. */
  layerBeside: "checkpoints",
  tools: [],
  /** The part reads them as PartContext.flags (goal-options.ts, goalFlags). */
  flags: [
    {
      name: "goal",
      kind: "string",
      valueName: "CONDITION",
      help: [
        "work until a separate judge finds CONDITION met (exit 0),",
        "impossible (exit 1) or the budget spent (exit 3); /goal in the REPL",
      ],
      check: goalCondition,
    },
    {
      name: "goal-model",
      kind: "string",
      valueName: "M",
      help: ["the judge's model, of the same provider (default: the session's)"],
    },
    {
      name: "goal-max-turns",
      kind: "string",
      valueName: "N",
      help: ["continuations in a row before the goal gives up (default 8)"],
      check: positiveInteger,
    },
  ],
} as const;

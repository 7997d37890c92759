// The few lines of agentloop's source behind each step of a session, keyed by the step anchors
// (`// @step KEY: sentence`, see docs/architecture.md) that scripts/step-sources.mjs collects.
// `npm run build` collects them once and carries the table in the CLI as a constant, so a
// session viewed later shows the code of the build that wrote it; running from source collects
// them once, on first use, with the same helper.

import { fileURLToPath } from "node:url";

export interface StepSource {
  /** The anchor's key: "loop.reply", "compaction.clear", "tool.bash". */
  key: string;
  /** The sentence after "KEY: ", for a reader of the course. */
  note: string;
  /** Posix path relative to the repository's root: "src/loop.ts". */
  file: string;
  /** 1-based: the line of code the anchor points at. */
  line: number;
  /** "runOneTurn", "Class.method", "(module)" for top-level code. */
  functionName: string;
  /** 1-based number of lines[0]. */
  firstLine: number;
  /** The function when it is short, else a window around `line`; indentation as in the file. */
  lines: string[];
}

export interface StepSources {
  /** The first 12 hex digits of the sha256 of `sources`: a session header records it. */
  id: string;
  /** package.json's version when the table was collected. */
  version: string;
  /** Sorted by key. */
  sources: Record<string, StepSource>;
}

/** The table as JSON text: one copy in the bundle, parsed on first use. */
declare const AGENTLOOP_STEP_SOURCES: string | undefined;

let cached: Promise<StepSources> | undefined;

export function stepSources(): Promise<StepSources> {
  cached ??=
    typeof AGENTLOOP_STEP_SOURCES === "string"
      ? Promise.resolve(JSON.parse(AGENTLOOP_STEP_SOURCES) as StepSources)
      : collectFromSource();
  return cached;
}

async function collectFromSource(): Promise<StepSources> {
  // Not a literal specifier, so neither tsc nor the CLI bundle tries to follow it.
  const helper = new URL("../../scripts/step-sources.mjs", import.meta.url).href;
  const { collectStepSources } = (await import(helper)) as {
    collectStepSources(root: string): StepSources;
  };
  return collectStepSources(fileURLToPath(new URL("../..", import.meta.url)));
}

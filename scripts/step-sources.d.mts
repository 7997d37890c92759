// The types of step-sources.mjs, for the TypeScript that imports it (the tests).
import type { StepSources } from "../src/core/step-sources.js";

export function collectStepSources(root: string): StepSources;

// The rules of Harbor's ATIF RFC 0001 (v1.7) and of its reference validator's models, written
// here from the RFC's text (no code of Harbor's): required fields and their types, step ids
// from 1 in order, the sources, fields only an agent step may carry, tool calls' shape,
// observations that name a call of their own step, metrics, final metrics, no unknown fields
// (the models forbid extra keys), and v1.7's subagent refs that resolve to an embedded
// trajectory or name a file. Returns every problem found, each with its path.

const VERSIONS = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"].map((v) => `ATIF-v${v}`);
const SOURCES = ["system", "user", "agent"];
const AGENT_ONLY = ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"];

const FIELDS = {
  trajectory: [
    "schema_version",
    "session_id",
    "trajectory_id",
    "agent",
    "steps",
    "notes",
    "final_metrics",
    "continued_trajectory_ref",
    "extra",
    "subagent_trajectories",
  ],
  agent: ["name", "version", "model_name", "tool_definitions", "extra"],
  step: [
    "step_id",
    "timestamp",
    "source",
    "model_name",
    "reasoning_effort",
    "message",
    "reasoning_content",
    "tool_calls",
    "observation",
    "metrics",
    "is_copied_context",
    "llm_call_count",
    "extra",
  ],
  toolCall: ["tool_call_id", "function_name", "arguments", "extra"],
  observation: ["results"],
  result: ["source_call_id", "content", "subagent_trajectory_ref", "extra"],
  ref: ["session_id", "trajectory_id", "trajectory_path", "extra"],
  metrics: [
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "cost_usd",
    "prompt_token_ids",
    "completion_token_ids",
    "logprobs",
    "extra",
  ],
  finalMetrics: [
    "total_prompt_tokens",
    "total_completion_tokens",
    "total_cached_tokens",
    "total_cost_usd",
    "total_steps",
    "extra",
  ],
};

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

export function atifProblems(trajectory: unknown): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  checkTrajectory(trajectory, "$", problems, ids);
  return problems;
}

function unknownFields(value: Json, allowed: string[], path: string, problems: string[]) {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) problems.push(`${path}.${key}: not a field of ATIF`);
  }
}

function checkTrajectory(value: unknown, path: string, problems: string[], ids: Set<string>) {
  if (!isObject(value)) {
    problems.push(`${path}: not an object`);
    return;
  }
  unknownFields(value, FIELDS.trajectory, path, problems);
  if (!VERSIONS.includes(value.schema_version as string)) {
    problems.push(
      `${path}.schema_version: ${JSON.stringify(value.schema_version)} is no ATIF version`,
    );
  }
  for (const key of ["session_id", "trajectory_id", "notes"]) {
    if (value[key] !== undefined && typeof value[key] !== "string") {
      problems.push(`${path}.${key}: not a string`);
    }
  }
  if (typeof value.trajectory_id === "string") {
    if (ids.has(value.trajectory_id)) problems.push(`${path}.trajectory_id: used twice`);
    ids.add(value.trajectory_id);
  }
  checkAgent(value.agent, `${path}.agent`, problems);
  const embedded = new Set<string>();
  const subagents = value.subagent_trajectories;
  if (subagents !== undefined) {
    if (!Array.isArray(subagents)) problems.push(`${path}.subagent_trajectories: not an array`);
    else {
      subagents.forEach((child, index) => {
        const childPath = `${path}.subagent_trajectories[${index}]`;
        if (isObject(child) && typeof child.trajectory_id !== "string") {
          problems.push(`${childPath}.trajectory_id: an embedded trajectory needs one`);
        }
        if (isObject(child) && typeof child.trajectory_id === "string") {
          embedded.add(child.trajectory_id);
        }
        checkTrajectory(child, childPath, problems, ids);
      });
    }
  }
  if (!Array.isArray(value.steps) || value.steps.length === 0) {
    problems.push(`${path}.steps: not a non-empty array`);
    return;
  }
  for (const [index, step] of value.steps.entries()) {
    checkStep(step, index, `${path}.steps[${index}]`, problems, embedded);
  }
  if (value.final_metrics !== undefined) {
    checkFinalMetrics(value.final_metrics, value.steps, `${path}.final_metrics`, problems);
  }
}

function checkAgent(agent: unknown, path: string, problems: string[]) {
  if (!isObject(agent)) {
    problems.push(`${path}: required object`);
    return;
  }
  unknownFields(agent, FIELDS.agent, path, problems);
  for (const key of ["name", "version"]) {
    if (typeof agent[key] !== "string" || agent[key] === "") {
      problems.push(`${path}.${key}: required string`);
    }
  }
}

function checkStep(
  step: unknown,
  index: number,
  path: string,
  problems: string[],
  embedded: Set<string>,
) {
  if (!isObject(step)) {
    problems.push(`${path}: not an object`);
    return;
  }
  unknownFields(step, FIELDS.step, path, problems);
  if (step.step_id !== index + 1) {
    problems.push(`${path}.step_id: ${JSON.stringify(step.step_id)}, expected ${index + 1}`);
  }
  if (!SOURCES.includes(step.source as string)) {
    problems.push(`${path}.source: ${JSON.stringify(step.source)} is not system, user or agent`);
  }
  if (typeof step.message !== "string" && !Array.isArray(step.message)) {
    problems.push(`${path}.message: required string (may be empty)`);
  }
  if (step.timestamp !== undefined) {
    const valid = typeof step.timestamp === "string" && ISO_8601.test(step.timestamp);
    if (!valid || Number.isNaN(Date.parse(step.timestamp as string))) {
      problems.push(`${path}.timestamp: not ISO 8601`);
    }
  }
  if (step.source !== "agent") {
    for (const key of AGENT_ONLY) {
      if (step[key] !== undefined) problems.push(`${path}.${key}: only an agent step has it`);
    }
  }
  const callIds = new Set<string>();
  if (step.tool_calls !== undefined) {
    if (!Array.isArray(step.tool_calls)) problems.push(`${path}.tool_calls: not an array`);
    else {
      step.tool_calls.forEach((call, callIndex) => {
        const callPath = `${path}.tool_calls[${callIndex}]`;
        if (!isObject(call)) {
          problems.push(`${callPath}: not an object`);
          return;
        }
        unknownFields(call, FIELDS.toolCall, callPath, problems);
        if (typeof call.tool_call_id !== "string")
          problems.push(`${callPath}.tool_call_id: required`);
        else callIds.add(call.tool_call_id);
        if (typeof call.function_name !== "string") {
          problems.push(`${callPath}.function_name: required`);
        }
        if (!isObject(call.arguments)) problems.push(`${callPath}.arguments: not a JSON object`);
      });
    }
  }
  if (step.observation !== undefined) {
    checkObservation(step.observation, callIds, `${path}.observation`, problems, embedded);
  }
  if (step.metrics !== undefined) checkMetrics(step.metrics, `${path}.metrics`, problems);
}

function checkObservation(
  observation: unknown,
  callIds: Set<string>,
  path: string,
  problems: string[],
  embedded: Set<string>,
) {
  if (!isObject(observation)) {
    problems.push(`${path}: not an object`);
    return;
  }
  unknownFields(observation, FIELDS.observation, path, problems);
  if (!Array.isArray(observation.results)) {
    problems.push(`${path}.results: required array`);
    return;
  }
  observation.results.forEach((result, index) => {
    const resultPath = `${path}.results[${index}]`;
    if (!isObject(result)) {
      problems.push(`${resultPath}: not an object`);
      return;
    }
    unknownFields(result, FIELDS.result, resultPath, problems);
    const source = result.source_call_id;
    if (source !== undefined && source !== null && !callIds.has(source as string)) {
      problems.push(
        `${resultPath}.source_call_id: ${JSON.stringify(source)} is no call of this step`,
      );
    }
    if (
      result.content !== undefined &&
      typeof result.content !== "string" &&
      !Array.isArray(result.content)
    ) {
      problems.push(`${resultPath}.content: not a string`);
    }
    const refs = result.subagent_trajectory_ref;
    if (refs === undefined) return;
    if (!Array.isArray(refs)) {
      problems.push(`${resultPath}.subagent_trajectory_ref: not an array`);
      return;
    }
    refs.forEach((ref, refIndex) => {
      const refPath = `${resultPath}.subagent_trajectory_ref[${refIndex}]`;
      if (!isObject(ref)) {
        problems.push(`${refPath}: not an object`);
        return;
      }
      unknownFields(ref, FIELDS.ref, refPath, problems);
      const id = ref.trajectory_id;
      const file = ref.trajectory_path;
      if (typeof id !== "string" && typeof file !== "string") {
        problems.push(`${refPath}: needs a trajectory_id or a trajectory_path (v1.7)`);
      }
      if (typeof id === "string" && typeof file !== "string" && !embedded.has(id)) {
        problems.push(`${refPath}.trajectory_id: ${id} is no embedded subagent trajectory`);
      }
    });
  });
}

function checkMetrics(metrics: unknown, path: string, problems: string[]) {
  if (!isObject(metrics)) {
    problems.push(`${path}: not an object`);
    return;
  }
  unknownFields(metrics, FIELDS.metrics, path, problems);
  for (const key of ["prompt_tokens", "completion_tokens", "cached_tokens"]) {
    if (metrics[key] !== undefined && !isCount(metrics[key])) {
      problems.push(`${path}.${key}: not a whole number of tokens`);
    }
  }
  if (metrics.cost_usd !== undefined && typeof metrics.cost_usd !== "number") {
    problems.push(`${path}.cost_usd: not a number`);
  }
  // Cached tokens are a subset of the prompt's, which counts them.
  if (isCount(metrics.cached_tokens) && isCount(metrics.prompt_tokens)) {
    if ((metrics.cached_tokens as number) > (metrics.prompt_tokens as number)) {
      problems.push(`${path}.cached_tokens: more than prompt_tokens, which includes them`);
    }
  }
}

function checkFinalMetrics(value: unknown, steps: unknown[], path: string, problems: string[]) {
  if (!isObject(value)) {
    problems.push(`${path}: not an object`);
    return;
  }
  unknownFields(value, FIELDS.finalMetrics, path, problems);
  const sum = (key: string) =>
    steps.reduce<number>((total, step) => {
      const metrics = isObject(step) && isObject(step.metrics) ? step.metrics : {};
      return total + (typeof metrics[key] === "number" ? (metrics[key] as number) : 0);
    }, 0);
  const totals: [string, string][] = [
    ["total_prompt_tokens", "prompt_tokens"],
    ["total_completion_tokens", "completion_tokens"],
    ["total_cached_tokens", "cached_tokens"],
    ["total_cost_usd", "cost_usd"],
  ];
  for (const [total, key] of totals) {
    if (value[total] === undefined) continue;
    if (Math.abs((value[total] as number) - sum(key)) > 1e-9) {
      problems.push(`${path}.${total}: ${value[total]}, but the steps sum to ${sum(key)}`);
    }
  }
  if (value.total_steps !== undefined && value.total_steps !== steps.length) {
    problems.push(`${path}.total_steps: ${value.total_steps}, but there are ${steps.length} steps`);
  }
}

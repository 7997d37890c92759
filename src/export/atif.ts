// A session file as an ATIF trajectory (Harbor's Agent Trajectory Interchange Format, RFC 0001,
// v1.7): a user step per prompt, an agent step per reply with its tool calls, their results as
// the step's observation and its tokens and cost as its metrics, a compaction as the step it
// was, and each subagent's run as an embedded trajectory its call's result points to.
// https://github.com/harbor-framework/harbor/blob/main/docs/rfcs/0001-trajectory-format.md

import { dirname, join } from "node:path";
import {
  type AssistantMessage,
  inputTokensOf,
  type Message,
  resultText,
  type ToolResultBlock,
  type Usage,
} from "../core/messages.js";
import { costOf } from "../session/cost.js";
import { readSession, type SessionContents, type SessionEntry } from "../session/session-file.js";

export const ATIF_VERSION = "ATIF-v1.7";

export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
}

export interface AtifSubagentRef {
  /** The `trajectory_id` of a run in the parent's `subagent_trajectories`. */
  trajectory_id: string;
}

export interface AtifResult {
  source_call_id?: string;
  content?: string;
  subagent_trajectory_ref?: AtifSubagentRef[];
}

export interface AtifMetrics {
  /** Every input token, cached ones included, as the RFC counts them. */
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost_usd?: number;
  extra?: { cache_creation_input_tokens: number };
}

export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: "system" | "user" | "agent";
  message: string;
  model_name?: string;
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: AtifResult[] };
  metrics?: AtifMetrics;
  extra?: Record<string, unknown>;
}

export interface AtifTrajectory {
  schema_version: typeof ATIF_VERSION;
  session_id: string;
  trajectory_id: string;
  agent: { name: string; version: string; model_name?: string };
  steps: AtifStep[];
  notes?: string;
  final_metrics: {
    total_prompt_tokens: number;
    total_completion_tokens: number;
    total_cached_tokens: number;
    total_cost_usd?: number;
    total_steps: number;
  };
  subagent_trajectories?: AtifTrajectory[];
  extra?: Record<string, unknown>;
}

interface Where {
  /** The session file, whose directory the subagents' transcripts are named from. */
  path: string;
  /** agentloop's version, for `agent.version`. */
  version: string;
  /** The trajectory's own id: the session's id, or the agent id of a subagent's run. */
  trajectoryId: string;
}

/** The trajectory of a session file read leniently: a line cut off by a kill is left out. */
export function trajectoryOf(contents: SessionContents, where: Where): AtifTrajectory {
  const model = contents.header?.model;
  const steps: Omit<AtifStep, "step_id">[] = [];
  /** The agent step each tool call was made in, so that its result joins that step. */
  const stepOfCall = new Map<string, Omit<AtifStep, "step_id">>();
  /** The children's runs by the agent call that started each; one whose file is gone is left out. */
  const subagentOfCall = new Map<string, AtifTrajectory>();
  const unreadable: string[] = [];
  for (const entry of contents.entries) {
    if (entry.type !== "subagent") continue;
    const child = subagentTrajectory(entry, where);
    if (child) subagentOfCall.set(entry.tool_use_id, child);
    else unreadable.push(entry.transcript);
  }

  for (const entry of contents.entries) {
    if (entry.type === "message") {
      const { message } = entry;
      if (message.role === "assistant") {
        const step = agentStep(message, entry.usage, model, entry.at);
        for (const call of step.tool_calls ?? []) stepOfCall.set(call.tool_call_id, step);
        steps.push(step);
        continue;
      }
      const results = toolResults(message);
      for (const result of results) {
        const step = stepOfCall.get(result.tool_use_id);
        if (!step) continue;
        const run = subagentOfCall.get(result.tool_use_id);
        step.observation ??= { results: [] };
        step.observation.results.push({
          source_call_id: result.tool_use_id,
          content: resultText(result.content),
          ...(run ? { subagent_trajectory_ref: [{ trajectory_id: run.trajectory_id }] } : {}),
        });
      }
      const words = userText(message);
      // A message of results alone is the observation above; words beside them are the user's.
      if (words || results.length === 0) {
        steps.push({ source: "user", message: words, timestamp: entry.at });
      }
    } else if (entry.type === "compaction") {
      steps.push(compactionStep(entry, model));
    }
  }
  const notes = [
    ...(contents.problems.length > 0
      ? [`Left out ${contents.problems.length} unreadable line(s) of the session file.`]
      : []),
    ...unreadable.map((transcript) => `The subagent transcript ${transcript} could not be read.`),
  ];
  const subagents = [...subagentOfCall.values()];

  const numbered = steps.map((step, index) => ({ step_id: index + 1, ...step }));
  return {
    schema_version: ATIF_VERSION,
    session_id: contents.header?.id ?? where.trajectoryId,
    trajectory_id: where.trajectoryId,
    agent: { name: "agentloop", version: where.version, ...(model ? { model_name: model } : {}) },
    steps: numbered,
    ...(notes.length > 0 ? { notes: notes.join(" ") } : {}),
    final_metrics: finalMetrics(numbered),
    ...(subagents.length > 0 ? { subagent_trajectories: subagents } : {}),
  };
}

/** The trajectory of the session file at `path`, with its subagents' runs embedded. */
export function exportAtif(path: string, version: string, trajectoryId?: string): AtifTrajectory {
  const contents = readSession(path);
  const id = trajectoryId ?? contents.header?.id ?? path;
  return trajectoryOf(contents, { path, version, trajectoryId: id });
}

function agentStep(
  message: AssistantMessage,
  usage: Usage | undefined,
  model: string | undefined,
  at: string,
): Omit<AtifStep, "step_id"> {
  const text: string[] = [];
  const reasoning: string[] = [];
  const calls: AtifToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") text.push(block.text);
    else if (block.type === "thinking") reasoning.push(block.thinking);
    else if (block.type === "tool_use") {
      calls.push({
        tool_call_id: block.id,
        function_name: block.name,
        arguments: isObject(block.input) ? block.input : { input: block.input },
      });
    }
  }
  return {
    source: "agent",
    message: text.join(""),
    timestamp: at,
    ...(model ? { model_name: model } : {}),
    ...(reasoning.length > 0 ? { reasoning_content: reasoning.join("\n") } : {}),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(usage ? { metrics: metricsOf(usage, model) } : {}),
  };
}

function metricsOf(usage: Usage, model: string | undefined): AtifMetrics {
  const cost = model ? costOf(model, usage) : null;
  return {
    prompt_tokens: inputTokensOf(usage),
    completion_tokens: usage.output_tokens,
    cached_tokens: usage.cache_read_input_tokens,
    ...(cost === null ? {} : { cost_usd: cost }),
    // A cache write is priced apart from the rest of the prompt (the RFC's "additional cost factors").
    ...(usage.cache_creation_input_tokens > 0
      ? { extra: { cache_creation_input_tokens: usage.cache_creation_input_tokens } }
      : {}),
  };
}

/**
 * A summary is a model request of its own: an agent step with its tokens, so the totals hold
 * what the session paid. Clearing old results asks no model: a system step.
 */
function compactionStep(
  entry: Extract<SessionEntry, { type: "compaction" }>,
  model: string | undefined,
): Omit<AtifStep, "step_id"> {
  const extra = {
    compaction: {
      kind: entry.kind,
      trigger: entry.trigger,
      tokens_before: entry.tokensBefore,
      tokens_after: entry.tokensAfter,
    },
  };
  if (entry.kind === "clear") {
    return {
      source: "system",
      message: `Cleared ${entry.cleared.length} old tool result(s) to fit the context window.`,
      timestamp: entry.at,
      extra,
    };
  }
  return {
    source: "agent",
    message: entry.summary,
    timestamp: entry.at,
    ...(model ? { model_name: model } : {}),
    metrics: metricsOf(entry.usage, model),
    extra,
  };
}

/** A child's run, to embed; null when its transcript cannot be read (then no ref points at it). */
function subagentTrajectory(
  run: Extract<SessionEntry, { type: "subagent" }>,
  where: Where,
): AtifTrajectory | null {
  const path = join(dirname(where.path), run.transcript);
  try {
    const child = exportAtif(path, where.version, run.agent_id);
    return { ...child, extra: { agent_type: run.agent_type, stop_reason: run.reason } };
  } catch {
    return null;
  }
}

function finalMetrics(steps: AtifStep[]): AtifTrajectory["final_metrics"] {
  const sum = (pick: (metrics: AtifMetrics) => number) =>
    steps.reduce((total, step) => total + (step.metrics ? pick(step.metrics) : 0), 0);
  const priced = steps.every((step) => !step.metrics || step.metrics.cost_usd !== undefined);
  return {
    total_prompt_tokens: sum((metrics) => metrics.prompt_tokens),
    total_completion_tokens: sum((metrics) => metrics.completion_tokens),
    total_cached_tokens: sum((metrics) => metrics.cached_tokens),
    ...(priced ? { total_cost_usd: sum((metrics) => metrics.cost_usd ?? 0) } : {}),
    total_steps: steps.length,
  };
}

function toolResults(message: Message): ToolResultBlock[] {
  if (typeof message.content === "string") return [];
  return message.content.filter((block): block is ToolResultBlock => block.type === "tool_result");
}

function userText(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

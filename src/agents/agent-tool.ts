// The `agent` tool (course s06): hands one piece of work to a fresh loop. The child starts
// with an empty history holding only the prompt, gets the definition's body plus the
// session's environment and project instructions as its system prompt, shares the parent's
// provider, workspace, permission mode (or a narrower one), sandbox, rules and MCP servers,
// and never the `agent` tool itself. Its final text and a status line are the call's result.
// With `isolation: "worktree"` the child works in a git worktree of its own (src/worktrees/)
// instead of the parent's workspace, so such children may run at the same time as writers.

import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { AGENTLOOP_BUILD } from "../core/build-info.js";
import { inputTokensOf } from "../core/messages.js";
import type { ChildTools } from "../core/part.js";
import type { LoopOptions } from "../loop.js";
import { bounded, DEFAULT_MAX_RESULT_CHARS } from "../mcp/tool-result.js";
import type { PermissionMode } from "../permissions/policy.js";
import type { Provider } from "../providers/provider.js";
import { openSessionWriter, SESSION_FORMAT_VERSION } from "../session/session-file.js";
import { failure, type Tool } from "../tools/tool.js";
import { createToolbox } from "../tools/toolbox.js";
import {
  type ChildWorktree,
  openChildWorktree,
  WorktreeRefusal,
} from "../worktrees/child-worktree.js";
import type { SubagentChannel } from "./channel.js";
import { runChild } from "./child-run.js";
import { type AgentDefinition, childMode } from "./definition.js";
import { childReport } from "./report.js";
import { createSlots } from "./slots.js";
import { agentToolDescription } from "./tool-description.js";

export const AGENT_TOOL = "agent";
/** Children that change nothing in the parent's tree running at once, at most. */
export const MAX_CONCURRENT_AGENTS = 4;
/** Tools that change nothing whatever their input: a child with only these is read-only. */
const READ_ONLY_TOOLS = new Set(["read"]);

export type AgentInput = {
  description: string;
  prompt: string;
  subagent_type?: string;
  isolation?: "worktree";
};

export type { ChildTools } from "../core/part.js";

export interface AgentToolOptions {
  agents: readonly AgentDefinition[];
  /** The mode of the session (or agent) that runs this tool, as it is now. */
  parentMode: () => PermissionMode;
  /** The tools for a child named `agentName` under `mode`, in `workspace` when given; questions name the agent. */
  toolsFor(mode: PermissionMode, agentName: string, workspace?: string): Promise<ChildTools>;
  /** The parent's provider as it is now, and the same provider with another model. */
  models: { current(): Provider; start(model: string): Promise<Provider> };
  /** The environment and project instructions the parent's system prompt has. */
  environment: () => string;
  channel: SubagentChannel;
  /** The SubagentStop hooks' check for one child's run: they may send it back to work. */
  stopCheck?: (child: {
    type: string;
    id: string;
    transcript: string;
  }) => LoopOptions["beforeStop"];
  cwd: string;
  /**
   * Characters the list of agents in the description may take, read when the description is
   * first read (the session knows its window once the model has started); no limit without it.
   */
  listBudget?: () => number;
  /** How deep this tool's children are (1: the session's own), and how deep they may go. */
  depth: number;
  maxDepth: number;
}

export function createAgentTool(options: AgentToolOptions): Tool<AgentInput> {
  const byName = new Map(options.agents.map((agent) => [agent.name, agent]));
  const slots = createSlots(MAX_CONCURRENT_AGENTS);
  const modeOf = (agent: AgentDefinition) =>
    childMode(agent.permissionMode, options.parentMode()).mode;
  const isReadOnly = (agent: AgentDefinition) =>
    modeOf(agent) === "read-only" ||
    agent.tools?.every((name) => READ_ONLY_TOOLS.has(name)) === true;
  const isolated = (input: AgentInput, agent: AgentDefinition) =>
    input.isolation === "worktree" || agent.isolation === "worktree";
  // A child in its own worktree changes nothing the parent or its siblings see.
  const keepsOut = (input: AgentInput, agent: AgentDefinition) =>
    isReadOnly(agent) || isolated(input, agent);

  let description: string | undefined;
  return {
    name: AGENT_TOOL,
    get description() {
      description ??= agentToolDescription(options.agents, options.listBudget?.());
      return description;
    },
    inputSchema: {
      type: "object",
      properties: {
        description: { type: "string", description: "What the agent will do, in 3-5 words." },
        prompt: {
          type: "string",
          description: "The whole task: the agent sees nothing of this conversation.",
        },
        subagent_type: {
          type: "string",
          description: "One of the agents listed; general by default.",
        },
        isolation: {
          type: "string",
          enum: ["worktree"],
          description:
            "worktree: a new git worktree and branch from HEAD, so several agents may write at once; changes are committed on it.",
        },
      },
      required: ["description", "prompt"],
    },
    // Each of the child's calls goes through the permission check; starting it needs none.
    delegates: true,
    isReadOnly(input) {
      const agent = byName.get(input.subagent_type ?? "general");
      return agent !== undefined && keepsOut(input, agent);
    },
    async run(input, context) {
      const type = input.subagent_type ?? "general";
      const agent = byName.get(type);
      if (!agent) {
        const known = options.agents.map((candidate) => candidate.name).join(", ");
        return failure(`There is no agent "${type}". The agents are: ${known}.`);
      }
      const parent = options.channel.parent;
      if (!parent) return failure("The agent tool runs only inside a session.");
      const release = keepsOut(input, agent) ? await slots.take() : () => undefined;
      let tools: ChildTools | undefined;
      let provider: Provider | undefined;
      let worktree: ChildWorktree | undefined;
      // The worktree's fate is settled once, whether the child finished or failed.
      let fate: Promise<string> | undefined;
      const settle = () => (fate ??= worktree?.finish(`${agent.name}: ${input.description}`));
      try {
        const mode = modeOf(agent);
        if (isolated(input, agent)) worktree = await openChildWorktree(options.cwd, agent.name);
        const workspace = worktree?.workspace;
        tools = await options.toolsFor(mode, agent.name, workspace);
        // Below the deepest level a child may run agents itself, under its own mode.
        const nested =
          options.depth < options.maxDepth &&
          (agent.tools?.includes(AGENT_TOOL) ?? true) &&
          !agent.disallowedTools.includes(AGENT_TOOL)
            ? [
                createAgentTool({
                  ...options,
                  // A grandchild works where its parent does, unless it has a worktree of its own.
                  cwd: workspace ?? options.cwd,
                  toolsFor: (under, name, own) => options.toolsFor(under, name, own ?? workspace),
                  parentMode: () => mode,
                  depth: options.depth + 1,
                }) as Tool,
              ]
            : [];
        provider =
          agent.model === "inherit"
            ? options.models.current()
            : await options.models.start(agent.model);
        const directory = parent.transcriptDirectory();
        const { agentId, writer } = openChildTranscript(directory, options.cwd, provider);
        const model = provider.model;
        const parent_tool_use_id = context.toolUseId ?? "";
        const outcome = await runChild({
          provider,
          toolbox: createToolbox(
            [...offered(tools.tools, agent), ...nested],
            tools.checkPermission,
            tools.hooks,
          ),
          system: [agent.prompt, options.environment(), worktree?.briefing ?? ""]
            .filter(Boolean)
            .join("\n\n")
            .trim(),
          prompt: input.prompt,
          maxTurns: agent.maxTurns,
          signal: context.signal,
          limits: parent.limits,
          beforeStop: options.stopCheck?.({
            type: agent.name,
            id: agentId,
            transcript: writer.path,
          }),
          writer,
          onEvent: (event) =>
            options.channel.emit({
              type: "subagent",
              parent_tool_use_id,
              agentType: agent.name,
              agentId,
              model,
              transcript: writer.path,
              event,
            }),
        }).finally(() => writer.close());
        const report = childReport(outcome.finalText, {
          agentType: agent.name,
          agentId,
          status: outcome.status,
          toolCalls: outcome.toolCalls,
          tokens: inputTokensOf(outcome.usage) + outcome.usage.output_tokens,
          costUsd: outcome.costUsd,
          worktree: await settle(),
        });
        const content = bounded(worktree?.warning ? `${report}\n${worktree.warning}` : report, {
          maxChars: DEFAULT_MAX_RESULT_CHARS,
          outputDirectory: directory,
          toolName: `agent-${agentId}`,
        });
        return {
          content,
          isError: outcome.status !== "completed" && outcome.status !== "max_turns",
        };
      } catch (error) {
        if (error instanceof WorktreeRefusal) return failure(error.message);
        return failure(`The ${type} agent could not run: ${(error as Error).message}`);
      } finally {
        await settle()?.catch(() => undefined);
        release();
        await tools?.dispose();
        if (provider && agent.model !== "inherit") await provider.dispose?.();
      }
    },
  };
}

/** The child's tools: those the definition names (all when it names none), minus the ones it disallows. */
function offered(tools: readonly Tool[], agent: AgentDefinition): Tool[] {
  const named = agent.tools ? new Set(agent.tools) : null;
  const disallowed = new Set(agent.disallowedTools);
  return tools.filter(
    (tool) => !disallowed.has(tool.name) && (named === null || named.has(tool.name)),
  );
}

/** The child's own session file, `<session dir>/agents/<id>.jsonl`, its id four hex digits new there. */
function openChildTranscript(directory: string, cwd: string, provider: Provider) {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  let agentId = randomBytes(2).toString("hex");
  while (existsSync(join(directory, `${agentId}.jsonl`))) agentId = randomBytes(2).toString("hex");
  const writer = openSessionWriter(directory, {
    type: "session",
    version: SESSION_FORMAT_VERSION,
    id: agentId,
    cwd,
    model: provider.model,
    provider: provider.name,
    startedAt: new Date().toISOString(),
    agentloop: AGENTLOOP_BUILD,
  });
  return { agentId, writer };
}

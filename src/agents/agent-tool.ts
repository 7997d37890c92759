// The `agent` tool (course s06): hands one piece of work to a fresh loop. The child starts
// with an empty history holding only the prompt, gets the definition's body plus the
// session's environment and project instructions as its system prompt, shares the parent's
// provider, workspace, permission mode (or a narrower one), sandbox, rules and MCP servers,
// and never the `agent` tool itself. Its final text and a status line are the call's result.
// With `isolation: "worktree"` the child works in a git worktree of its own (src/worktrees/)
// instead of the parent's workspace, so such children may run at the same time as writers.
// Another part may run a call in the background instead (`background`: a teammate, src/teams/):
// the child is prepared the same way, and that part runs it and reports on it.

import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { AGENTLOOP_BUILD } from "../core/build-info.js";
import { workTreeRootOf } from "../core/git-directory.js";
import type { Limit } from "../core/limits.js";
import { inputTokensOf } from "../core/messages.js";
import type { ChildTools } from "../core/part.js";
import type { ToolContext, ToolOutput } from "../core/tool.js";
import type { LoopOptions } from "../loop.js";
import { bounded, DEFAULT_MAX_RESULT_CHARS } from "../mcp/tool-result.js";
import type { PermissionMode } from "../permissions/policy.js";
import type { Provider } from "../providers/provider.js";
import {
  openSessionWriter,
  SESSION_FORMAT_VERSION,
  type SessionWriter,
} from "../session/session-file.js";
import { failure, type Tool } from "../tools/tool.js";
import { createToolbox, type Toolbox } from "../tools/toolbox.js";
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
  /** With `background`: the name a child running beside the session is addressed by. */
  name?: string;
  /** With `background`: the call starts the child and returns at once. */
  run_in_background?: boolean;
};

/** A child made ready to run, handed to the part that runs it in the background. */
export interface PreparedChild {
  agent: AgentDefinition;
  agentId: string;
  /** Its own session file, `<session dir>/agents/<id>.jsonl`: the runner records and closes it. */
  writer: SessionWriter;
  provider: Provider;
  /** Its system prompt: the definition's, the environment, and its worktree's briefing. */
  system: string;
  /** The limits it shares with the session (its cost budget). */
  limits: readonly Limit[];
  /** The SubagentStop hooks' check, as a foreground child has it. */
  beforeStop: LoopOptions["beforeStop"];
  /** Its tools (and `extra` after them) under its mode's permission check and the hooks. */
  toolbox(extra: readonly Tool[]): Toolbox;
  /** Its own git worktree's copy of the workspace, when it has one. */
  workspace: string | undefined;
  /** A sentence for the parent when the child does not see what it sees (its worktree's). */
  warning: string | null;
  /** Ends it, once: commits its worktree's changes and says what became of them; frees its tools. */
  finish(): Promise<string | undefined>;
}

/**
 * Calls another part runs beside the session (teammates, src/teams/): the fields it adds to the
 * tool's input, and the run it gives a child prepared as a foreground one is. A child that may
 * write gets a worktree of its own, so children working at once never meet in one tree.
 */
export interface BackgroundAgents {
  /** Properties added to the input schema (Claude Code's `name`, `run_in_background`). */
  fields: Record<string, unknown>;
  /** A sentence added to the tool's description. */
  about: string;
  /** Why this background call cannot start (a name taken, the team full), or null. */
  refusal(input: AgentInput): string | null;
  /** Starts the child and returns the call's result at once; it owns the child from then on. */
  start(input: AgentInput, child: PreparedChild, context: ToolContext): Promise<ToolOutput>;
}

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
  /** Runs a call with `run_in_background` beside the session; absent, every call runs here. */
  background?: BackgroundAgents;
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

  const background = options.background;
  /** Prepares the child a call asks for: its worktree, tools, model, file and prompt. */
  async function prepare(
    input: AgentInput,
    agent: AgentDefinition,
    parent: NonNullable<SubagentChannel["parent"]>,
    inBackground: boolean,
  ): Promise<PreparedChild> {
    // Named after the teammate when it has a name: its branch says whose work it holds, and
    // its permission questions whose call they are about.
    const naming = inBackground && input.name ? input.name : agent.name;
    let worktree: ChildWorktree | undefined;
    let tools: ChildTools | undefined;
    let provider: Provider | undefined;
    // The worktree's fate is settled once, whether the child finished or failed.
    let fate: Promise<string | undefined> | undefined;
    const finish = () =>
      (fate ??= (async () => {
        try {
          return await worktree?.finish(`${naming}: ${input.description}`);
        } finally {
          await tools?.dispose();
          if (provider && agent.model !== "inherit") await provider.dispose?.();
        }
      })());
    try {
      const mode = modeOf(agent);
      // A child beside the session that may write gets its own tree, as `isolation` gives one,
      // where there is a repository to make it from; elsewhere it shares the workspace.
      const writesBeside =
        inBackground && !isReadOnly(agent) && workTreeRootOf(options.cwd) !== null;
      const ownTree = isolated(input, agent) || writesBeside;
      if (ownTree) worktree = await openChildWorktree(options.cwd, naming);
      const workspace = worktree?.workspace;
      const childTools = await options.toolsFor(mode, naming, workspace);
      tools = childTools;
      // Below the deepest level a child may run agents itself, under its own mode; never in the
      // background (a teammate has no team of its own).
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
                background: undefined,
              }) as Tool,
            ]
          : [];
      const model =
        agent.model === "inherit"
          ? options.models.current()
          : await options.models.start(agent.model);
      provider = model;
      const { agentId, writer } = openChildTranscript(
        parent.transcriptDirectory(),
        options.cwd,
        model,
      );
      return {
        agent,
        agentId,
        writer,
        provider: model,
        system: [agent.prompt, options.environment(), worktree?.briefing ?? ""]
          .filter(Boolean)
          .join("\n\n")
          .trim(),
        limits: parent.limits,
        beforeStop: options.stopCheck?.({
          type: agent.name,
          id: agentId,
          transcript: writer.path,
        }),
        toolbox: (extra) =>
          createToolbox(
            [...offered(childTools.tools, agent), ...nested, ...extra],
            childTools.checkPermission,
            childTools.hooks,
          ),
        workspace,
        warning: worktree?.warning ?? null,
        finish,
      };
    } catch (error) {
      await finish().catch(() => undefined);
      throw error;
    }
  }

  let description: string | undefined;
  return {
    name: AGENT_TOOL,
    get description() {
      description ??= agentToolDescription(options.agents, options.listBudget?.());
      return background ? `${description}\n${background.about}` : description;
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
        ...background?.fields,
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
      const beside = input.run_in_background === true ? background : undefined;
      const refusal = beside?.refusal(input);
      if (refusal) return failure(refusal);
      const release = !beside && keepsOut(input, agent) ? await slots.take() : () => undefined;
      let child: PreparedChild | undefined;
      try {
        child = await prepare(input, agent, parent, beside !== undefined);
        if (beside) {
          const handed = child;
          child = undefined;
          return await beside.start(input, handed, context);
        }
        const { agentId, writer, provider } = child;
        const model = provider.model;
        const parent_tool_use_id = context.toolUseId ?? "";
        const outcome = await runChild({
          provider,
          toolbox: child.toolbox([]),
          system: child.system,
          prompt: input.prompt,
          maxTurns: agent.maxTurns,
          signal: context.signal,
          limits: child.limits,
          beforeStop: child.beforeStop,
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
          worktree: await child.finish(),
        });
        const content = bounded(child.warning ? `${report}\n${child.warning}` : report, {
          maxChars: DEFAULT_MAX_RESULT_CHARS,
          outputDirectory: parent.transcriptDirectory(),
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
        await child?.finish().catch(() => undefined);
        release();
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

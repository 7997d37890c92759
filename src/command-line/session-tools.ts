// The tools of a session under its permission mode: bash (sandboxed, redacted, asked about),
// the file tools, the todo list, skills and the agent tool, or the set the user chose; the tools
// each subagent gets under its own mode; and the work kept out of start-up. The mode can change
// while the session runs (plan mode): each mode's sandbox is proven when the mode is first used,
// and plan mode adds the tools it needs.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Interface } from "node:readline";
import type { AgentToolOptions, ChildTools } from "../agents/agent-tool.js";
import type { SubagentChannel } from "../agents/channel.js";
import { createTaskStopTool } from "../background/task-stop.js";
import type { BackgroundTasks } from "../background/tasks.js";
import { ConfigError } from "../core/errors.js";
import type { McpConnections } from "../mcp/connections.js";
import { startSessionMcp } from "../mcp/session-mcp.js";
import { createModeSwitch, type ModeSwitch } from "../permissions/mode-switch.js";
import {
  createPermissionCheck,
  initShellParser,
  isReadOnlyCommand,
  loadPermissionRules,
  type PermissionMode,
  type PermissionRules,
  sandboxFor,
} from "../permissions/policy.js";
import { createRedactor, secretValues } from "../permissions/secrets.js";
import { createExitPlanModeTool } from "../planning/exit-plan-mode.js";
import type { PlanMode } from "../planning/plan-mode.js";
import type { TodoList } from "../planning/todo-list.js";
import { createTodoWriteTool } from "../planning/todo-write.js";
import type { Provider } from "../providers/provider.js";
import type { Sandbox, SandboxOptions } from "../sandbox/sandbox.js";
import { checkSandbox, createSandbox } from "../sandbox/select.js";
import type { LoadedSkills } from "../skills/loaded-skills.js";
import type { Skill } from "../skills/skill.js";
import { createSkillTool } from "../skills/skill-tool.js";
import { terminalAsk } from "../terminal/ask.js";
import { terminalMcpAsk } from "../terminal/mcp-ask.js";
import { terminalPlanApproval } from "../terminal/plan-approval.js";
import { type BashOptions, createBashTool } from "../tools/bash.js";
import { createEditTool } from "../tools/edit.js";
import { createFileReads, type FileReads } from "../tools/file-reads.js";
import { createReadTool } from "../tools/read.js";
import type { Tool } from "../tools/tool.js";
import { chooseToolNames, type ToolName } from "../tools/tool-set.js";
import { createToolbox, type Toolbox, type ToolCallHooks } from "../tools/toolbox.js";
import { createWriteTool } from "../tools/write.js";
import type { RunOptions } from "./config.js";

export interface ToolSetup {
  options: RunOptions;
  mode: PermissionMode;
  /** The environment with .env's values: the secrets to redact. */
  env: NodeJS.ProcessEnv;
  /** The real environment alone: where the user's settings are. */
  userEnv: NodeJS.ProcessEnv;
  stateDirectory: string;
  readline: Interface | undefined;
  /** Called while a permission question waits for its answer (see terminal/progress.ts). */
  holdProgress?: () => () => void;
  keyVariable: string | null;
  /** The session's plan, which the todo_write tool replaces. */
  todos: TodoList;
  /** The skills and commands found; the skill tool is offered when the model may load one of them. */
  skills: readonly Skill[];
  loadedSkills: LoadedSkills;
  /** The user's PreToolUse and PostToolUse hooks (src/hooks/), when any run. */
  toolHooks?: ToolCallHooks;
  /** The session runs a local model, which gets todo_write by default. */
  localModel: boolean;
  /** One sentence for the user before the session starts (an MCP server that did not start). */
  onNotice: (sentence: string) => void;
  /** Plan mode's plan file and notes; its tool is offered while the mode is plan. */
  plan: PlanMode;
  /** Hears each change of the permission mode (to record it in the session file). */
  onModeChange: (mode: PermissionMode, previous: PermissionMode) => void;
  /** The session's background tasks: bash gets run_in_background, and task_stop comes with it. */
  tasks?: BackgroundTasks;
  /** For the agent tool: where children report, their models and their system prompt's rest. */
  subagents: {
    channel: SubagentChannel;
    models: { current(): Provider; start(model: string): Promise<Provider> };
    environment: () => string;
    /** The SubagentStop hooks' check for one child's run, when there are hooks. */
    stopCheck?: AgentToolOptions["stopCheck"];
    listBudget?: AgentToolOptions["listBudget"];
  };
}

export interface SessionTools {
  toolbox: Toolbox;
  /** The permission mode, which /plan and exit_plan_mode change. */
  modes: ModeSwitch;
}

export async function createSessionTools(setup: ToolSetup): Promise<SessionTools> {
  const { options, mode } = setup;
  // A person at the terminal may go into plan mode and out of it into any mode.
  const switchable = setup.readline !== undefined;
  let scratch: string | undefined;
  // Made when a mode with a sandbox may be used: at once, or when a subagent's mode first needs it.
  const scratchDirectory = () => {
    if (scratch) return scratch;
    // Outside /tmp, which the sandbox replaces, so it is visible inside at the same path.
    const scratchRoot = join(setup.stateDirectory, "scratch");
    mkdirSync(scratchRoot, { recursive: true, mode: 0o700 });
    scratch = mkdtempSync(join(scratchRoot, "run-"));
    return scratch;
  };
  if (sandboxFor(mode) || switchable) scratchDirectory();
  // The sandboxes proven so far, writable or not; a mode is used only once its sandbox is here.
  const sandboxes = new Map<boolean, Sandbox>();
  const prepare = async (next: PermissionMode) => {
    const shape = sandboxFor(next);
    if (!shape || sandboxes.has(shape.writable)) return;
    const sandbox: SandboxOptions = {
      workspace: options.cwd,
      writable: shape.writable,
      allowNetwork: options.allowNetwork,
      tmpDir: scratchDirectory(),
    };
    const check = await checkSandbox(sandbox);
    if (!check.ok) throw new ConfigError(check.reason);
    sandboxes.set(shape.writable, createSandbox(sandbox));
  };
  // Plan mode adds todo_write and the plan file's write tool; the list stays once it began.
  let planned = mode === "plan";
  const modes = createModeSwitch(mode, prepare, (next, previous) => {
    if (next === "plan") planned = true;
    setup.onModeChange(next, previous);
  });
  const currentSandbox = () => {
    const shape = sandboxFor(modes.current());
    if (!shape) return null;
    const sandbox = sandboxes.get(shape.writable);
    // The mode changes only once its sandbox is proven: a command never runs outside it.
    if (!sandbox) throw new Error(`The ${modes.current()} mode's sandbox was not started.`);
    return sandbox;
  };
  // Inside the scratch directory when there is one, so sandboxed commands can read them.
  const mcpOutputs = mkdtempSync(join(scratch ?? tmpdir(), "agentloop-mcp-"));
  const removeTemporaries = () => {
    rmSync(mcpOutputs, { recursive: true, force: true });
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  };
  // MCP servers start at once too, so that they are ready by the first request.
  const mcpStarting = startSessionMcp({
    workspace: options.cwd,
    configFiles: options.mcpConfigFiles,
    env: setup.userEnv,
    mode,
    ask: setup.readline ? terminalMcpAsk(setup.readline) : undefined,
    outputDirectory: mcpOutputs,
    onNotice: setup.onNotice,
  });
  let rules: PermissionRules;
  let names: ToolName[];
  let mcp: McpConnections;
  let agentPart: AgentPart | null;
  try {
    // Started before anything is awaited, so that the sandbox's trial run overlaps the rest.
    const [loaded, , chosen, connections] = await Promise.all([
      loadPermissionRules({ workspace: options.cwd, env: setup.userEnv }),
      prepare(mode),
      chooseToolNames({
        flag: options.tools,
        workspace: options.cwd,
        env: setup.userEnv,
        localModel: setup.localModel,
      }),
      mcpStarting,
    ]);
    rules = loaded;
    names = chosen;
    mcp = connections;
    agentPart = names.includes("agent") ? await loadAgentPart(setup) : null;
  } catch (error) {
    await mcpStarting.then((connections) => connections.close()).catch(() => undefined);
    removeTemporaries();
    throw error;
  }
  const bashOptions: BashOptions = {
    cwd: options.cwd,
    secretNames: setup.keyVariable ? [setup.keyVariable] : [],
    redact: createRedactor(secretValues(setup.env)),
    // The sandbox of the mode the command runs in, read at each command.
    wrap: (argv, context) => currentSandbox()?.wrap(argv, context) ?? argv,
    get endLeftovers() {
      return currentSandbox()?.endsLeftovers === false;
    },
    tempDir: scratch,
    startBackground: setup.tasks?.start,
  };
  const workspace = options.cwd;
  const reads = createFileReads();
  const make = (name: Exclude<ToolName, "agent">, bash: BashOptions, reads: FileReads): Tool => {
    switch (name) {
      case "bash": {
        const tool = createBashTool(bash);
        tool.isReadOnly = (input) => isReadOnlyCommand(input.command);
        return tool as Tool;
      }
      case "read":
        return createReadTool({ workspace, reads, redact: bash.redact }) as Tool;
      case "write":
        return createWriteTool({ workspace, reads }) as Tool;
      case "edit":
        return createEditTool({ workspace, reads }) as Tool;
      case "todo_write":
        return createTodoWriteTool(setup.todos) as Tool;
      case "skill":
        return createSkillTool(setup.skills, setup.loadedSkills) as Tool;
    }
  };
  const checkPermission = createPermissionCheck({
    mode: modes.current,
    planFile: setup.plan.file,
    workspace: options.cwd,
    rules,
    ask: setup.readline ? terminalAsk(setup.readline, setup.holdProgress) : undefined,
    scratch: scratch ? [scratch] : [],
  });
  // Each child gets tools of its own (its shell's directory, its reads), under its mode: the
  // session's sandbox for that mode, proven once, and no background tasks of its own.
  const childBash = async (childModeValue: PermissionMode): Promise<BashOptions> => {
    await prepare(childModeValue);
    const shape = sandboxFor(childModeValue);
    const sandbox = shape ? (sandboxes.get(shape.writable) as Sandbox) : undefined;
    const { wrap, endsLeftovers } = sandbox ?? { wrap: undefined, endsLeftovers: true };
    return {
      ...bashOptions,
      wrap,
      endLeftovers: !endsLeftovers,
      tempDir: scratch,
      startBackground: undefined,
    };
  };
  const toolsFor = async (childModeValue: PermissionMode, agentName: string) => {
    const bash = await childBash(childModeValue);
    const childReads = createFileReads();
    const own = names.flatMap((name) =>
      name === "agent" || name === "todo_write" || name === "skill"
        ? []
        : [make(name, bash, childReads)],
    );
    const ask = setup.readline ? terminalAsk(setup.readline, setup.holdProgress) : undefined;
    const check = createPermissionCheck({
      mode: childModeValue,
      planFile: setup.plan.file,
      workspace: options.cwd,
      rules,
      ask: ask && ((question) => ask({ ...question, tool: `[${agentName}] ${question.tool}` })),
      scratch: scratch ? [scratch] : [],
    });
    return {
      tools: [...own, ...mcp.tools()],
      checkPermission: check,
      // The user's PreToolUse and PostToolUse hooks see a child's calls as they see the session's.
      hooks: setup.toolHooks,
      dispose: async () => {
        await Promise.all(own.map((tool) => tool.dispose?.()));
      },
    } satisfies ChildTools;
  };
  const agentTool = (part: AgentPart) =>
    part.createAgentTool({
      agents: part.agents,
      parentMode: modes.current,
      toolsFor,
      cwd: options.cwd,
      depth: 1,
      maxDepth: part.maxDepth,
      ...setup.subagents,
    }) as Tool;
  // The agent part is loaded whenever the names hold "agent".
  const makeChosen = (name: ToolName) =>
    name === "agent" ? agentTool(agentPart as AgentPart) : make(name, bashOptions, reads);
  const skillsToLoad = setup.skills.some((skill) => skill.modelInvocable);
  const chosen = names.filter((name) => name !== "skill" || skillsToLoad).map(makeChosen);
  const added = (wanted: ToolName[]) =>
    wanted.filter((name) => !names.includes(name)).map(makeChosen);
  const afterPlanning = [...chosen, ...added(["todo_write"])];
  const exitPlanMode = createExitPlanModeTool({
    plan: setup.plan,
    modes,
    approve: setup.readline ? terminalPlanApproval(setup.readline, setup.holdProgress) : undefined,
  });
  const planning = [...afterPlanning, ...added(["write"]), exitPlanMode as Tool];
  const builtIn = () => (modes.current() === "plan" ? planning : planned ? afterPlanning : chosen);
  // Offered from the first background task on: a session that starts none pays nothing for it.
  const { tasks } = setup;
  const taskStop = tasks && names.includes("bash") ? [createTaskStopTool(tasks) as Tool] : [];
  const offerTaskStop = () => taskStop.length > 0 && (tasks?.list().length ?? 0) > 0;
  // The same array until the mode, an MCP server's tools or task_stop change, as the toolbox asks.
  let fromMcp: readonly Tool[] | null = null;
  let fromMode: readonly Tool[] | null = null;
  let withTaskStop = false;
  let all: readonly Tool[] = [];
  const currentTools = () => {
    if (mcp.tools() !== fromMcp || builtIn() !== fromMode || offerTaskStop() !== withTaskStop) {
      fromMcp = mcp.tools();
      fromMode = builtIn();
      withTaskStop = offerTaskStop();
      all = [...fromMode, ...(withTaskStop ? taskStop : []), ...fromMcp];
    }
    return all;
  };
  let startUpOver: Promise<void> | undefined;
  const toolbox = createToolbox(
    currentTools,
    async (call, tool, hint) => {
      startUpOver ??= afterStartUp();
      await startUpOver;
      return checkPermission(call, tool, hint);
    },
    setup.toolHooks,
  );
  // Not a spread copy: `definitions` is a getter, read anew each turn.
  const disposeTools = toolbox.dispose;
  toolbox.dispose = async () => {
    await disposeTools();
    await mcp.close();
    removeTemporaries();
  };
  return { toolbox, modes };
}

type AgentPart = Awaited<ReturnType<typeof loadAgentPart>>;

/**
 * The agent tool's part (src/agents/), loaded only by a session that offers the tool: its code,
 * the depth setting and the definitions, a file skipped or a mode ignored one notice each.
 */
async function loadAgentPart(setup: ToolSetup) {
  const [{ createAgentTool }, { childMode }, { chooseAgentDepth }, { findAgents }] =
    await Promise.all([
      import("../agents/agent-tool.js"),
      import("../agents/definition.js"),
      import("../agents/depth-setting.js"),
      import("../agents/discovery.js"),
    ]);
  const where = { workspace: setup.options.cwd, env: setup.userEnv };
  const maxDepth = await chooseAgentDepth(where);
  const found = findAgents(where);
  for (const notice of found.notices) setup.onNotice(notice);
  for (const agent of found.agents) {
    const { ignored } = childMode(agent.permissionMode, setup.mode);
    if (ignored) setup.onNotice(`agent ${agent.name}: ${ignored}; it runs in ${setup.mode} mode.`);
  }
  return { createAgentTool, agents: found.agents, maxDepth };
}

/**
 * Work kept out of start-up, where it would delay the first request, and done on the first
 * tool call: loading the shell parser, and two V8 settings for a long session, each read by V8
 * when it applies.
 * - tree-sitter-bash is 1.3 MB of WebAssembly parse tables. After its first parses V8 compiles
 *   them again with its optimizing compiler, in the background, holding some 40 MB more, for a
 *   parser that reads one short command line per tool call; baseline code parses one in about
 *   0.04 ms. The other WebAssembly, fetch's HTTP parser, was compiled before, as usual.
 * - The young generation has grown to what start-up needed. It would otherwise keep doubling,
 *   up to 32 MB, whenever enough survives a scavenge, only to hold each turn's garbage longer.
 */
async function afterStartUp(): Promise<void> {
  // Imported here: node:v8 takes about 3 ms to load, which start-up need not wait for.
  const { setFlagsFromString } = await import("node:v8");
  setFlagsFromString("--liftoff-only");
  setFlagsFromString("--semi-space-growth-factor=1");
  return initShellParser();
}

// The chapters a session is assembled from, in order. The order is the order of their tools
// after the built-in ones, of the notes beside a prompt, of the paragraphs restated beside a
// compaction's summary and of the events that follow a loop event (docs/architecture.md).
// Each part's own code is imported with the list: a default session starts every one of them,
// and as chunks of their own, loaded one by one, they cost more to find and link than to compile
// (docs/development.md, "Start-up"). What a part needs only once it is used (the MCP SDK, the web
// page reader, the shell parser) it still imports then.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentsPart } from "../agents/part.js";
import type { BackgroundPart } from "../background/part.js";
import { createCheckpointsPart } from "../checkpoints/part.js";
import type { SessionPart } from "../core/part.js";
import type { ProjectSettings } from "../core/project-settings.js";
import type { Provider } from "../core/provider.js";
import { createGoalPart } from "../goal/part.js";
import { createHooksPart } from "../hooks/part.js";
import type { PreparedHooks } from "../hooks/prepare.js";
import { startLspPart } from "../lsp/part.js";
import { createMcpPart } from "../mcp/part.js";
import { startSessionMcp } from "../mcp/session-mcp.js";
import { startMemoryPart } from "../memory/part.js";
import type { ModeSwitch } from "../permissions/mode-switch.js";
import type { PermissionRules } from "../permissions/rules.js";
import type { PlanningPart } from "../planning/part.js";
import { CHAPTER as SCHEDULE } from "../schedule/chapter.js";
import { createSchedulePart } from "../schedule/part.js";
import { catalogBudget } from "../skills/catalog.js";
import type { LoadedSkills } from "../skills/loaded-skills.js";
import { createSkillsPart } from "../skills/part.js";
import type { Skill } from "../skills/skill.js";
import { startTasksPart } from "../tasks/start.js";
import type { ToolName } from "../tools/tool-set.js";
import { startWebPart } from "../web/start.js";
import type { SessionIO } from "./session-io.js";
import type { SessionOptions } from "./session-options.js";

/** What the parts are started from: the session's settings and what the assembly made before. */
export interface PartContext {
  /** The front end's settings (the command line's flags), before the settings files add theirs. */
  options: SessionOptions;
  cwd: string;
  /** The real environment: where the user's settings, skills, agents and approvals are. */
  env: NodeJS.ProcessEnv;
  /**
   * The settings files as start-up read them, once for every part: a part reads its keys here
   * (readAllSettings with `read`), not from the files again.
   */
  settings: ProjectSettings;
  toolNames: readonly ToolName[];
  /** The chosen tools of the parts, among those their entries name (`PartEntry.tools`). */
  partTools: readonly string[];
  /** The person named the tools (--tools, a settings file) rather than taking the default set. */
  toolsChosen: boolean;
  mcpConfigFiles: string[];
  modes: ModeSwitch;
  /** The session's permission rules, as read at start; "always" answers are added to them. */
  rules: PermissionRules;
  io: SessionIO;
  /** Tells the person something before the session starts. */
  notice(sentence: string): void;
  /** Where sandboxed commands may write besides the workspace, when a mode has a sandbox. */
  scratch: string | undefined;
  /** The window the history is kept inside, once the provider is known. */
  contextWindow: Promise<number>;
  hooks: Promise<PreparedHooks>;
  skills: readonly Skill[];
  loadedSkills: LoadedSkills;
  /** Made first: the todo list and plan mode's tools depend on the built-in ones. */
  planning: PlanningPart;
  /** Made first: bash starts its background tasks. */
  background: BackgroundPart;
  /** Another model of the session's provider. */
  startModel(name: string): Promise<Provider>;
  /** --memory: memory across sessions on, whatever the user's settings say. */
  memory: boolean;
  /** What tool output goes through before the model or a file sees it: secrets replaced. */
  redact(text: string): string;
}

export interface PartEntry {
  name: string;
  /**
   * The tools its part may offer, by name, from its chapter's description: --tools and the
   * "tools" setting accept them, the default set holds them.
   */
  tools?: readonly string[];
  /** The part, or null when this session does not use it. May throw a ConfigError. */
  start(context: PartContext): Promise<SessionPart | null>;
}

export const SESSION_PARTS: readonly PartEntry[] = [
  { name: "planning", start: async (context) => context.planning },
  {
    name: "hooks",
    async start(context) {
      return createHooksPart(await context.hooks, context.io.notice);
    },
  },
  {
    name: "skills",
    async start(context) {
      return createSkillsPart({
        skills: context.skills,
        loaded: context.loadedSkills,
        chosen: context.toolNames.includes("skill"),
        cwd: context.cwd,
        env: context.env,
        contextWindow: await context.contextWindow,
      });
    },
  },
  {
    name: "memory",
    async start(context) {
      return startMemoryPart({
        cwd: context.cwd,
        env: context.env,
        settings: context.settings,
        flag: context.memory,
        redact: context.redact,
        noticeAtStart: context.notice,
        notice: context.io.notice,
      });
    },
  },
  {
    name: "agents",
    async start(context) {
      if (!context.toolNames.includes("agent")) return null;
      const [hooks, contextWindow] = await Promise.all([context.hooks, context.contextWindow]);
      // The list of agents takes the skills' catalog's share of the window.
      const listBudget = catalogBudget(contextWindow);
      return createAgentsPart({
        cwd: context.cwd,
        env: context.env,
        settings: context.settings,
        parentMode: context.modes.current,
        startModel: context.startModel,
        stopCheck: hooks.sessionHooks?.subagentStopCheck,
        listBudget: () => listBudget,
        onNotice: context.notice,
      });
    },
  },
  { name: "background", start: async (context) => context.background },
  {
    name: "tasks",
    async start(context) {
      const { toolNames, cwd: workspace, env } = context;
      return startTasksPart({ toolNames, workspace, env, settings: context.settings });
    },
  },
  {
    name: "goal",
    async start(context) {
      return createGoalPart({
        options: context.options,
        env: context.env,
        settings: context.settings,
        tasks: context.background.tasks,
        startModel: context.startModel,
      });
    },
  },
  {
    name: "mcp",
    async start(context) {
      // Inside the scratch directory when there is one, so sandboxed commands can read them.
      const outputDirectory = mkdtempSync(join(context.scratch ?? tmpdir(), "agentloop-mcp-"));
      const connections = await startSessionMcp({
        workspace: context.cwd,
        configFiles: context.mcpConfigFiles,
        env: context.env,
        read: context.settings,
        mode: context.modes.current(),
        ask: context.io.approveMcpServer,
        outputDirectory,
        onNotice: context.notice,
      }).catch((error) => {
        rmSync(outputDirectory, { recursive: true, force: true });
        throw error;
      });
      return createMcpPart(connections, () =>
        rmSync(outputDirectory, { recursive: true, force: true }),
      );
    },
  },
  {
    name: "web",
    async start(context) {
      const fetch = context.toolNames.includes("web_fetch");
      const search = context.toolNames.includes("web_search");
      if (!fetch && !search) return null;
      const { rules } = context;
      // A subagent fetches only when the person named web_fetch: it is not in a child's default.
      const fetchForChild = fetch && context.toolsChosen;
      const mode = context.modes.current;
      return startWebPart({ ...context, rules, mode, fetch, fetchForChild, search });
    },
  },
  {
    name: "schedule",
    tools: SCHEDULE.tools,
    async start(context) {
      return createSchedulePart({ tools: context.partTools });
    },
  },
  {
    name: "lsp",
    async start(context) {
      return startLspPart({ cwd: context.cwd, env: context.env, settings: context.settings });
    },
  },
  // Last: its screen is asked only once every other part admitted the prompt, so it takes one
  // checkpoint per prompt sent, and its hooks see a call as the others left it.
  {
    name: "checkpoints",
    async start(context) {
      return createCheckpointsPart({ cwd: context.cwd, env: context.env });
    },
  },
];

/** Starts every entry at once; a failure closes the parts that did start, then is thrown. */
export async function startParts(
  entries: readonly PartEntry[],
  context: PartContext,
): Promise<SessionPart[]> {
  const started = await Promise.allSettled(entries.map((entry) => entry.start(context)));
  const parts = started.flatMap((outcome) =>
    outcome.status === "fulfilled" && outcome.value ? [outcome.value] : [],
  );
  const failed = started.find((outcome) => outcome.status === "rejected");
  if (failed) {
    await Promise.all(parts.map((part) => part.close?.()));
    throw failed.reason;
  }
  return parts;
}

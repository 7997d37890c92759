// The chapters a session is assembled from, in order. The order is the order of their tools
// after the built-in ones, of the notes beside a prompt, of the paragraphs restated beside a
// compaction's summary and of the events that follow a loop event (docs/architecture.md).
// Each part's own code is imported with the list: a default session starts nearly every one, and
// as chunks of their own, loaded one by one, they cost more to find and link than to compile
// (docs/development.md, "Start-up"). What a part needs only once it is used (the MCP SDK, the web
// page reader, the shell parser) it imports then, as do the teams and plugins, which a session
// has only when the person turned them on.
// A chapter that describes itself (src/NAME/chapter.ts) is spread into its entry, so this list
// is also where the layer checker, --tools, the command line's flags and --help find every such
// chapter: adding one is its folder and its line here.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHAPTER as AGENTS } from "../agents/chapter.js";
import { createAgentsPart } from "../agents/part.js";
import { CHAPTER as BACKGROUND } from "../background/chapter.js";
import type { BackgroundPart } from "../background/part.js";
import { createCheckpointsPart } from "../checkpoints/part.js";
import type { ChapterFlags, FlagValues } from "../core/chapter-flags.js";
import type { ComponentSources } from "../core/component-sources.js";
import type { SessionPart } from "../core/part.js";
import type { ProjectSettings } from "../core/project-settings.js";
import type { Provider } from "../core/provider.js";
import { CHAPTER as GOAL } from "../goal/chapter.js";
import { createGoalPart } from "../goal/part.js";
import { CHAPTER as HOOKS } from "../hooks/chapter.js";
import { createHooksPart } from "../hooks/part.js";
import type { PreparedHooks } from "../hooks/prepare.js";
import { CHAPTER as LSP } from "../lsp/chapter.js";
import { startLspPart } from "../lsp/part.js";
import { CHAPTER as MCP } from "../mcp/chapter.js";
import { createMcpPart } from "../mcp/part.js";
import { startSessionMcp } from "../mcp/session-mcp.js";
import { CHAPTER as MEMORY } from "../memory/chapter.js";
import { startMemoryPart } from "../memory/part.js";
import type { ModeSwitch } from "../permissions/mode-switch.js";
import type { PermissionRules } from "../permissions/rules.js";
import { CHAPTER as PLANNING } from "../planning/chapter.js";
import type { PlanningPart } from "../planning/part.js";
import { CHAPTER as PLUGINS } from "../plugins/chapter.js";
import { CHAPTER as SCHEDULE } from "../schedule/chapter.js";
import { createSchedulePart } from "../schedule/part.js";
import { catalogBudget } from "../skills/catalog.js";
import { CHAPTER as SKILLS } from "../skills/chapter.js";
import type { LoadedSkills } from "../skills/loaded-skills.js";
import { createSkillsPart } from "../skills/part.js";
import type { Skill } from "../skills/skill.js";
import { CHAPTER as TASKS } from "../tasks/chapter.js";
import { startTasksPart } from "../tasks/start.js";
import { CHAPTER as TEAMS } from "../teams/chapter.js";
import type { TeamsPart } from "../teams/part.js";
import type { ChapterTools, ToolName } from "../tools/tool-set.js";
import { CHAPTER as WEB } from "../web/chapter.js";
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
  /** The chosen built-in tools. */
  toolNames: readonly ToolName[];
  /** The chosen tools of the parts, among those their entries name (`PartEntry.tools`). */
  partTools: readonly string[];
  /** The person named the tools (--tools, a settings file) rather than taking the default set. */
  toolsChosen: boolean;
  mcpConfigFiles: string[];
  /** What the entries' `componentSources` gave: folders beside the person's own places. */
  sources: ComponentSources;
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
  /** The chapters' flags the front end was given (`PartEntry.flags`): each part reads its own. */
  flags: FlagValues;
  /** What tool output goes through before the model or a file sees it: secrets replaced. */
  redact(text: string): string;
}

/** Where the settings are, and the files as start-up read them (absent: read now). */
export interface SettingsWhere {
  workspace: string;
  /** The real environment: where the user's settings and agentloop's state are. */
  env: NodeJS.ProcessEnv;
  settings?: ProjectSettings;
}

/** One chapter in the list: its description (src/NAME/chapter.ts, when it has one) and its start. */
export interface PartEntry extends ChapterTools, ChapterFlags {
  /** Its folder's name, when it has one (src/NAME/). */
  name: string;
  /** The part whose layer its folder is in (scripts/check-layers.ts); a library's has none. */
  layerBeside?: string;
  /**
   * Keys of the settings files only the person's own may set, never a project's: core's
   * USER_ONLY_KEYS must hold them (test/chapters.test.ts), since core cannot read this list.
   */
  userOnlySettings?: readonly string[];
  /**
   * Folders of skills, commands, agents, hooks and MCP servers it adds beside the person's own
   * (the enabled plugins'), asked once before any part starts: the assembly hands them to the
   * parts that read each kind (`PartContext.sources`).
   */
  componentSources?(where: SettingsWhere): Promise<ComponentSources>;
  /** The part, or null when this session does not use it. May throw a ConfigError. */
  start(context: PartContext): Promise<SessionPart | null>;
}

/**
 * The team of a session that has one (src/teams/), made once for the entries that need it: the
 * agents' (its tool starts teammates), the board's (a lead has one) and its own.
 */
const teams = new WeakMap<PartContext, Promise<TeamsPart | null>>();
function teamOf(context: PartContext): Promise<TeamsPart | null> {
  let team = teams.get(context);
  if (!team) {
    team = import("../teams/start.js").then(({ startTeamsPart }) =>
      startTeamsPart({
        ...context,
        flag: context.flags.teams === true,
        maxTurns: context.options.maxTurns,
      }),
    );
    teams.set(context, team);
  }
  return team;
}

export const SESSION_PARTS: readonly PartEntry[] = [
  // First: what its plugins add is read by the hooks, skills, agents and mcp below.
  {
    ...PLUGINS,
    async componentSources(where) {
      const { pluginSources } = await import("../plugins/part.js");
      return pluginSources({ workspace: where.workspace, env: where.env, read: where.settings });
    },
    async start(context) {
      const { createPluginsPart } = await import("../plugins/part.js");
      return createPluginsPart({ workspace: context.cwd, env: context.env });
    },
  },
  { ...PLANNING, start: async (context) => context.planning },
  {
    ...HOOKS,
    async start(context) {
      return createHooksPart(await context.hooks, context.io.notice);
    },
  },
  {
    ...SKILLS,
    async start(context) {
      return createSkillsPart({
        skills: context.skills,
        loaded: context.loadedSkills,
        chosen: context.partTools.includes("skill"),
        cwd: context.cwd,
        env: context.env,
        contextWindow: await context.contextWindow,
      });
    },
  },
  {
    ...MEMORY,
    async start(context) {
      return startMemoryPart({
        cwd: context.cwd,
        env: context.env,
        settings: context.settings,
        flag: context.flags.memory === true,
        redact: context.redact,
        noticeAtStart: context.notice,
        notice: context.io.notice,
      });
    },
  },
  {
    ...AGENTS,
    async start(context) {
      if (!context.partTools.includes("agent")) return null;
      const [hooks, contextWindow, team] = await Promise.all([
        context.hooks,
        context.contextWindow,
        teamOf(context),
      ]);
      // The list of agents takes the skills' catalog's share of the window.
      const listBudget = catalogBudget(contextWindow);
      return createAgentsPart({
        cwd: context.cwd,
        env: context.env,
        settings: context.settings,
        sources: context.sources,
        parentMode: context.modes.current,
        startModel: context.startModel,
        stopCheck: hooks.sessionHooks?.subagentStopCheck,
        listBudget: () => listBudget,
        onNotice: context.notice,
        background: team?.agents,
      });
    },
  },
  { ...BACKGROUND, start: async (context) => context.background },
  {
    ...TASKS,
    async start(context) {
      const team = await teamOf(context);
      const { partTools: tools, cwd: workspace, env, settings } = context;
      return startTasksPart({ tools, workspace, env, settings, team: team !== null });
    },
  },
  { ...TEAMS, start: teamOf },
  {
    ...GOAL,
    async start(context) {
      return createGoalPart({
        options: context.options,
        flags: context.flags,
        env: context.env,
        settings: context.settings,
        tasks: context.background.tasks,
        startModel: context.startModel,
      });
    },
  },
  {
    ...MCP,
    async start(context) {
      // Inside the scratch directory when there is one, so sandboxed commands can read them.
      const outputDirectory = mkdtempSync(join(context.scratch ?? tmpdir(), "agentloop-mcp-"));
      const connections = await startSessionMcp({
        workspace: context.cwd,
        configFiles: context.mcpConfigFiles,
        env: context.env,
        read: context.settings,
        sources: context.sources,
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
    ...WEB,
    async start(context) {
      const fetch = context.partTools.includes("web_fetch");
      const search = context.partTools.includes("web_search");
      if (!fetch && !search) return null;
      const { rules } = context;
      // A subagent fetches only when the person named web_fetch: it is not in a child's default.
      const fetchForChild = fetch && context.toolsChosen;
      const mode = context.modes.current;
      return startWebPart({ ...context, rules, mode, fetch, fetchForChild, search });
    },
  },
  {
    ...SCHEDULE,
    async start(context) {
      return createSchedulePart({ tools: context.partTools });
    },
  },
  {
    ...LSP,
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

/** What the entries add beside the person's own places, together, in list order. */
export async function componentSourcesOf(
  entries: readonly PartEntry[],
  where: SettingsWhere,
): Promise<ComponentSources> {
  const given = await Promise.all(entries.map((entry) => entry.componentSources?.(where)));
  return {
    sources: given.flatMap((each) => each?.sources ?? []),
    problems: given.flatMap((each) => each?.problems ?? []),
  };
}

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

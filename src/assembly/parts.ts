// The chapters a session is assembled from, in order. The order is the order of their tools
// after the built-in ones, of the notes beside a prompt, of the paragraphs restated beside a
// compaction's summary and of the events that follow a loop event (docs/architecture.md).
// A part that a session does not use is not loaded: its entry imports it only when it starts.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BackgroundPart } from "../background/part.js";
import type { SessionPart } from "../core/part.js";
import type { Provider } from "../core/provider.js";
import type { PreparedHooks } from "../hooks/prepare.js";
import type { ModeSwitch } from "../permissions/mode-switch.js";
import type { PlanningPart } from "../planning/part.js";
import type { LoadedSkills } from "../skills/loaded-skills.js";
import type { Skill } from "../skills/skill.js";
import type { ToolName } from "../tools/tool-set.js";
import type { SessionIO } from "./session-io.js";

/** What the parts are started from: the session's settings and what the assembly made before. */
export interface PartContext {
  cwd: string;
  /** The real environment: where the user's settings, skills, agents and approvals are. */
  env: NodeJS.ProcessEnv;
  toolNames: readonly ToolName[];
  mcpConfigFiles: string[];
  modes: ModeSwitch;
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
}

export interface PartEntry {
  name: string;
  /** The part, or null when this session does not use it. May throw a ConfigError. */
  start(context: PartContext): Promise<SessionPart | null>;
}

export const SESSION_PARTS: readonly PartEntry[] = [
  { name: "planning", start: async (context) => context.planning },
  {
    name: "hooks",
    async start(context) {
      const { createHooksPart } = await import("../hooks/part.js");
      return createHooksPart(await context.hooks, context.io.notice);
    },
  },
  {
    name: "skills",
    async start(context) {
      const { createSkillsPart } = await import("../skills/part.js");
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
    name: "agents",
    async start(context) {
      if (!context.toolNames.includes("agent")) return null;
      const [{ createAgentsPart }, hooks] = await Promise.all([
        import("../agents/part.js"),
        context.hooks,
      ]);
      return createAgentsPart({
        cwd: context.cwd,
        env: context.env,
        parentMode: context.modes.current,
        startModel: context.startModel,
        stopCheck: hooks.sessionHooks?.subagentStopCheck,
        onNotice: context.notice,
      });
    },
  },
  { name: "background", start: async (context) => context.background },
  {
    name: "mcp",
    async start(context) {
      const [{ startSessionMcp }, { createMcpPart }] = await Promise.all([
        import("../mcp/session-mcp.js"),
        import("../mcp/part.js"),
      ]);
      // Inside the scratch directory when there is one, so sandboxed commands can read them.
      const outputDirectory = mkdtempSync(join(context.scratch ?? tmpdir(), "agentloop-mcp-"));
      const connections = await startSessionMcp({
        workspace: context.cwd,
        configFiles: context.mcpConfigFiles,
        env: context.env,
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
  // Last: its screen is asked only once every other part admitted the prompt, so it takes one
  // checkpoint per prompt sent, and its hooks see a call as the others left it.
  {
    name: "checkpoints",
    async start(context) {
      const { createCheckpointsPart } = await import("../checkpoints/part.js");
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

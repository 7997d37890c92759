// The subagents part (s06): the agent tool, whose run is a fresh loop, and the channel its
// children's events reach the session by while the call still runs. Children share the
// session's limits and write their files beside the session's, in its agents/ directory.

import { join } from "node:path";
import type { ComponentSources } from "../core/component-sources.js";
import type { PartHost, SessionPart } from "../core/part.js";
import type { ProjectSettings } from "../core/project-settings.js";
import type { Provider } from "../core/provider.js";
import type { Tool } from "../core/tool.js";
import { type AgentToolOptions, createAgentTool } from "./agent-tool.js";
import { createSubagentChannel } from "./channel.js";
import { childMode } from "./definition.js";
import { chooseAgentDepth } from "./depth-setting.js";
import { findAgents } from "./discovery.js";

export type AgentsOptions = Omit<
  AgentToolOptions,
  "agents" | "channel" | "depth" | "maxDepth" | "toolsFor" | "models" | "environment"
> & {
  /** Starts another model of the session's provider, which an agent definition names. */
  startModel(name: string): Promise<Provider>;
  /** The real environment: where the user's agent definitions and settings are. */
  env: NodeJS.ProcessEnv;
  /** The settings files as start-up read them; absent, they are read when the part starts. */
  settings?: ProjectSettings;
  /** Folders of agents beside the person's own (enabled plugins'), as the chapters gave them. */
  sources?: ComponentSources;
  /** A definition file skipped, or a mode it asks for ignored: one sentence each. */
  onNotice: (sentence: string) => void;
};

export async function createAgentsPart(options: AgentsOptions): Promise<SessionPart> {
  const where = { workspace: options.cwd, env: options.env };
  const maxDepth = await chooseAgentDepth({ ...where, read: options.settings });
  const found = findAgents({ ...where, sources: options.sources });
  for (const notice of found.notices) options.onNotice(notice);
  const mode = options.parentMode();
  for (const agent of found.agents) {
    const { ignored } = childMode(agent.permissionMode, mode);
    if (ignored) options.onNotice(`agent ${agent.name}: ${ignored}; it runs in ${mode} mode.`);
  }
  const channel = createSubagentChannel();
  // Children get the tools the session's parts offer a child, under the child's mode.
  let host: PartHost | null = null;
  const joined = () => {
    if (!host) throw new Error("The agent tool runs only inside a session.");
    return host;
  };
  const toolsFor: AgentToolOptions["toolsFor"] = (under, agentName, workspace) =>
    joined().childTools(under, agentName, workspace);
  const models = { current: () => joined().provider(), start: options.startModel };
  const agents = found.agents;
  const tools = [
    createAgentTool({
      ...options,
      agents,
      channel,
      toolsFor,
      models,
      environment: () => joined().basePrompt(),
      depth: 1,
      maxDepth,
    }) as Tool,
  ];
  const none: Tool[] = [];
  return {
    name: "agents",
    // A child's own agent tool, one level deeper, is made by the tool itself.
    tools: (offer) => (offer.forChild ? none : tools),
    sideEvents: channel,
    attach(session) {
      host = session;
      channel.parent = {
        limits: session.limits,
        transcriptDirectory: () => join(session.directory(), "agents"),
      };
    },
  };
}

// The plugins chapter joined to a session. Before any part starts, the enabled plugins become the
// session's component sources (core/component-sources.ts): each plugin's skills, commands,
// agents, hooks and MCP servers, named with its prefix, which the skills, agents, hooks and MCP
// parts read beside their own places without knowing plugins. Its part adds `/plugins`.

import type { ComponentSource, ComponentSources } from "../core/component-sources.js";
import type { SessionPart } from "../core/part.js";
import type { ProjectSettings } from "../core/project-settings.js";
import { enabledPlugins, pluginVariables } from "./enabled.js";
import { pluginLines } from "./plugin-list.js";

/** What the enabled plugins add to a session, each name prefixed as Claude Code does. */
export async function pluginSources(where: {
  workspace: string;
  /** The real environment: it locates the person's settings and agentloop's state. */
  env: NodeJS.ProcessEnv;
  /** The settings files as the session's start-up read them; absent, read now. */
  read?: ProjectSettings;
}): Promise<ComponentSources> {
  const { plugins, problems } = await enabledPlugins(where);
  const sources = plugins.map(
    (plugin): ComponentSource => ({
      prefix: `${plugin.name}:`,
      root: plugin.root,
      skills: plugin.components.skills,
      commands: plugin.components.commands,
      agents: plugin.components.agents,
      hooks: plugin.components.hooks,
      // `plugin_demo_tools`: Claude Code's name for the server "tools" of the plugin "demo".
      mcpServers: plugin.components.mcpServers.map(({ file, servers }) => ({
        file,
        servers: Object.fromEntries(
          Object.entries(servers).map(([name, server]) => [
            `plugin_${plugin.name}_${name}`,
            server,
          ]),
        ),
      })),
      variables: () => pluginVariables(plugin),
    }),
  );
  return { sources, problems };
}

/** `/plugins`: the plugins installed, and whether this session loaded each. */
export function createPluginsPart(where: {
  workspace: string;
  env: NodeJS.ProcessEnv;
}): SessionPart {
  return {
    name: "plugins",
    commands: [
      {
        name: "/plugins",
        argument: "",
        help: "the plugins installed and whether this session loaded each (agentloop plugin changes them)",
        run: async () => (await pluginLines(where)).join("\n"),
      },
    ],
  };
}

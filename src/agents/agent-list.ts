// What the REPL's /agents shows: each agent the agent tool can run, with what it is for, where
// it was defined, its tools, its turn limit and its mode; then the files that were skipped.

import { relative } from "node:path";
import type { ComponentSources } from "../core/component-sources.js";
import { findAgents } from "./discovery.js";

export function agentLines(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  /** The session's folders beside the person's own (enabled plugins'). */
  sources?: ComponentSources,
): string[] {
  const { agents, notices } = findAgents({ workspace: cwd, env, sources });
  const lines = agents.flatMap((agent) => {
    const source = agent.source === "built-in" ? "built-in" : relative(cwd, agent.source);
    const tools = agent.tools ? `tools ${agent.tools.join(", ") || "none"}` : "the session's tools";
    const without = agent.disallowedTools.length ? ` but ${agent.disallowedTools.join(", ")}` : "";
    const mode = agent.permissionMode ? `mode ${agent.permissionMode}` : "the session's mode";
    const model = agent.model === "inherit" ? "" : ` · model ${agent.model}`;
    return [
      `${agent.name}: ${agent.description}`,
      `    ${source} · ${tools}${without} · ${agent.maxTurns} turns · ${mode}${model}`,
    ];
  });
  return [
    ...lines,
    ...notices,
    "A hosted model gets the agent tool by default; a local one when it is chosen (--tools bash,read,write,edit,agent).",
  ];
}

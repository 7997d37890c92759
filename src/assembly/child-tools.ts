// A subagent's tools under its mode: its own bash, read, write and edit (its own shell and
// reads, the session's sandbox for that mode), what each part offers a child, and a permission
// check under the child's mode whose questions name the agent.

import type { ChildTools, PartHost, SessionPart } from "../core/part.js";
import type { ToolCallHooks } from "../core/tool.js";
import { createPermissionCheck, type PermissionOptions } from "../permissions/policy.js";
import type { BuiltInTools } from "./built-in-tools.js";

export function childToolsOf(setup: {
  builtIns: BuiltInTools;
  parts: readonly SessionPart[];
  /** The session's check, but for the mode: the child's replaces it. */
  permissions: Omit<PermissionOptions, "mode" | "scratch">;
  hooks: ToolCallHooks | undefined;
}): PartHost["childTools"] {
  const { builtIns, parts, permissions } = setup;
  return async (mode, agentName, workspace): Promise<ChildTools> => {
    const own = await builtIns.childBuiltIns(mode, workspace);
    const offered = parts.flatMap((part) => part.tools?.({ mode, forChild: true }) ?? []);
    const { ask } = permissions;
    return {
      tools: [...own, ...offered],
      checkPermission: createPermissionCheck({
        ...permissions,
        workspace: workspace ?? permissions.workspace,
        mode,
        ask: ask && ((question) => ask({ ...question, tool: `[${agentName}] ${question.tool}` })),
        scratch: builtIns.scratch ? [builtIns.scratch] : [],
      }),
      hooks: setup.hooks,
      dispose: async () => {
        await Promise.all(own.map((tool) => tool.dispose?.()));
      },
    };
  };
}

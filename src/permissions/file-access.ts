// The permission decision for a tool that names the files it reads or changes (read, write,
// edit). Paths are judged where they really point, symbolic links resolved, so a link in the
// workspace to ~/.ssh or /etc is judged as ~/.ssh or /etc. Reading is allowed anywhere but in
// credentials; changing a file is asked about (or, in auto mode, allowed) inside the workspace
// and the temp directories, and always needs a person anywhere else. Each path is resolved once
// (realPathsOf): the decision is about those real paths, and the tool is given them to work on,
// so a link swapped in after the check cannot take the call elsewhere (tools/pinned-file.ts).

import { isAbsolute, join, relative } from "node:path";
import { resolveToolPath } from "../core/tool-path.js";
import { HIDDEN_FROM_COMMANDS } from "../sandbox/hidden-paths.js";
import { realTarget } from "../sandbox/real-path.js";
import type { FileAccess } from "../tools/tool.js";
import type { Decision } from "./classify.js";
import { type PermissionRules, ruleForTool, toolRule } from "./rules.js";

export interface FileAccessContext {
  workspace: string;
  home: string;
  /** Directories outside the workspace that may be changed freely (the sandbox's). */
  scratch: string[];
  /** The system's temp directories, changed as freely where commands may change them too. */
  temporary: string[];
  rules: PermissionRules;
}

/** Where each path leads now, every link followed: what the decision and the tool both use. */
export function realPathsOf(
  files: FileAccess[],
  workspace: string,
  home: string,
): Record<string, string> {
  return Object.fromEntries(
    files.map(({ path }) => [path, realTarget(resolveToolPath(workspace, path, home))]),
  );
}

export function judgeFileAccess(
  toolName: string,
  files: FileAccess[],
  context: FileAccessContext,
  /** From realPathsOf, resolved once for the decision and the tool alike. */
  targets: Readonly<Record<string, string>> = realPathsOf(files, context.workspace, context.home),
): Decision {
  const rule = toolRule(toolName);
  // Resolved at every call: a link made since the last one is judged where it points now.
  const credentials = HIDDEN_FROM_COMMANDS.map((path) => realTarget(join(context.home, path)));
  const denied = ruleForTool(context.rules.deny, toolName);
  let writable: string[] | undefined;
  let changesInside: string | null = null;
  for (const { path, change } of files) {
    const given = resolveToolPath(context.workspace, path, context.home);
    const target = targets[path] ?? realTarget(given);
    const shown = target === given ? `"${path}"` : `"${path}" (a link to ${target})`;
    if (credentials.some((secret) => within(secret, target))) {
      return { verdict: "deny", reason: `${toolName} would use ${shown}, which holds credentials` };
    }
    if (denied) {
      return { verdict: "deny", reason: `${toolName} matches the deny rule "${denied}"` };
    }
    if (!change) continue;
    writable ??= [context.workspace, ...context.temporary, ...context.scratch].map(realTarget);
    if (!writable.some((root) => within(root, target))) {
      const reason = `${toolName} would change ${shown}, outside the workspace`;
      return { verdict: "ask", reason, flagged: true, rules: [] };
    }
    changesInside ??= shown;
  }
  const asked = ruleForTool(context.rules.ask, toolName);
  if (asked) {
    return {
      verdict: "ask",
      reason: `${toolName} matches the ask rule "${asked}"`,
      flagged: true,
      rules: [],
    };
  }
  if (changesInside === null || ruleForTool(context.rules.allow, toolName)) {
    return { verdict: "allow", reason: "" };
  }
  return {
    verdict: "ask",
    reason: `${toolName} would change ${changesInside}`,
    flagged: false,
    rules: [rule],
  };
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

// An agent definition: Markdown with YAML frontmatter, in Claude Code's format. `name` and
// `description` are required; `tools`, `disallowedTools`, `model`, `maxTurns` and
// `permissionMode` and `isolation` (`worktree`) are honoured; the body is the agent's own part of its system prompt.
// Fields that would give a child more than its parent has (`hooks`, `mcpServers`) are not
// read from any file (https://code.claude.com/docs/en/sub-agents lists the fields).

import type { PermissionMode } from "../permissions/policy.js";
import { type FieldValue, hasFrontmatter, parseFrontmatter } from "../skills/frontmatter.js";

export const DEFAULT_MAX_TURNS = 30;

export interface AgentDefinition {
  name: string;
  description: string;
  /** The body of the file: what the agent is for and how it works. */
  prompt: string;
  /** The only tools offered (names as the parent's toolbox has them); all when left out. */
  tools?: string[];
  /** Tools taken away from those offered. */
  disallowedTools: string[];
  /** "inherit" (the parent's model) or another model of the same provider. */
  model: string;
  maxTurns: number;
  /** As written; `childMode` decides what it becomes under the parent's mode. */
  permissionMode?: string;
  /** "worktree": each run of this agent gets its own git worktree (src/worktrees/). */
  isolation?: "worktree";
  /** The file it came from, or "built-in". */
  source: string;
}

/** Parses one definition file; a file that cannot be one says why in a few words. */
export function parseDefinition(text: string, source: string): AgentDefinition | { skip: string } {
  if (!hasFrontmatter(text)) return { skip: "it does not start with a --- line" };
  const parsed = parseFrontmatter(text);
  if (typeof parsed === "string") return { skip: parsed };
  const { fields } = parsed;
  const body = parsed.body.trim();
  const name = typeof fields.name === "string" ? fields.name.trim() : "";
  const description = typeof fields.description === "string" ? fields.description.trim() : "";
  if (!name) return { skip: "it has no name in its frontmatter" };
  if (!description) return { skip: "it has no description in its frontmatter" };
  if (!/^[\w.-]+$/.test(name)) {
    return { skip: `its name "${name}" has characters other than letters, digits, - _ .` };
  }
  const turns = fields.maxTurns ?? fields["max-turns"];
  const maxTurns = turns === undefined ? DEFAULT_MAX_TURNS : Number(turns);
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    return { skip: `its maxTurns "${String(turns)}" is not a whole number above 0` };
  }
  const model = typeof fields.model === "string" && fields.model ? fields.model : "inherit";
  const mode = fields.permissionMode;
  const isolation = fields.isolation;
  if (isolation !== undefined && isolation !== "worktree") {
    return { skip: `its isolation "${String(isolation)}" is not "worktree"` };
  }
  return {
    name,
    description,
    prompt: body,
    tools: listOf(fields.tools)?.map(toolName),
    disallowedTools: (listOf(fields.disallowedTools) ?? []).map(toolName),
    model,
    maxTurns,
    ...(typeof mode === "string" && mode ? { permissionMode: mode } : {}),
    ...(isolation ? { isolation } : {}),
    source,
  };
}

/** A value given as a list, or as one comma-separated string (`tools: Read, Grep`). */
function listOf(value: FieldValue | undefined): string[] | undefined {
  if (value === undefined || typeof value === "boolean") return undefined;
  const items = Array.isArray(value) ? value : value.split(",");
  return items.map((item) => item.trim()).filter(Boolean);
}

/** Claude Code writes `Read`, `Bash`: agentloop's tools are `read`, `bash`. MCP names stay. */
function toolName(name: string): string {
  return name.startsWith("mcp__") ? name : name.toLowerCase();
}

/**
 * The mode a child runs in: its own only when that narrows the parent's (read-only under
 * anything, auto under yolo), else the parent's, with the sentence saying so. Claude Code's
 * `plan` is read-only here and its `default` the parent's mode.
 */
export function childMode(
  requested: string | undefined,
  parent: PermissionMode,
): { mode: PermissionMode; ignored?: string } {
  if (requested === undefined || requested === "default" || requested === "inherit") {
    return { mode: parent };
  }
  const mode = requested === "plan" ? "read-only" : requested;
  if (mode === parent || mode === "read-only" || (mode === "auto" && parent === "yolo")) {
    return { mode };
  }
  const known = ["ask", "auto", "yolo", "bypassPermissions", "acceptEdits", "dontAsk"];
  const why = known.includes(mode)
    ? `it would widen the session's ${parent} mode`
    : "agentloop has no such mode";
  return { mode: parent, ignored: `permissionMode "${requested}" is ignored: ${why}` };
}

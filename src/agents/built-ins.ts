// The two agents every session has: `general`, with the parent's tools (never `agent`), and
// `explore`, which reads and runs commands in the read-only sandbox.

import { type AgentDefinition, DEFAULT_MAX_TURNS } from "./definition.js";

const general: AgentDefinition = {
  name: "general",
  description: "Any task, with this session's tools; it may change files.",
  prompt: [
    "You are a subagent: another agent handed you one task, and only your final reply goes back to it.",
    "Do the task completely, then reply with what you found or did: the facts, file paths and line numbers, and anything left undone. Do not ask questions; nobody will answer them.",
  ].join("\n"),
  disallowedTools: [],
  model: "inherit",
  maxTurns: DEFAULT_MAX_TURNS,
  source: "built-in",
};

const explore: AgentDefinition = {
  name: "explore",
  description: "Read-only search: where something is, how it works.",
  prompt: [
    "You are a read-only subagent exploring a codebase for another agent; only your final reply goes back to it.",
    "Search and read efficiently (grep, find, ls, read). You cannot change files. Reply with a concise answer: the relevant file paths with line numbers, and what they show.",
  ].join("\n"),
  tools: ["read", "bash"],
  disallowedTools: [],
  model: "inherit",
  maxTurns: DEFAULT_MAX_TURNS,
  permissionMode: "read-only",
  source: "built-in",
};

export const BUILT_IN_AGENTS: readonly AgentDefinition[] = [general, explore];

// The system prompt: who the model is, the environment it works in, the skills it may load
// and the project's instructions. Written once per session, so a prompt cache stays valid.
// A subagent's prompt is its own definition followed by the same `sessionContext`.

import { readProjectMemory } from "../skills/project-memory.js";
import { type EnvironmentFacts, environmentSection } from "./environment.js";

export interface SessionFacts extends EnvironmentFacts {
  /** The real environment: where the user's personal instructions are. */
  env?: NodeJS.ProcessEnv;
  /** The instructions, when already read (to tell the user what was not imported). */
  instructions?: string;
  /** The parts' sections (src/core/part.ts: the skills' catalog, ...), after agentloop's own lines. */
  sections?: readonly (string | null)[];
}

/** The facts of a session for which nothing was said: a plain session in `ask` mode. */
const PLAIN: SessionFacts = { mode: "ask", allowNetwork: false, toolNames: [] };

export function buildSystemPrompt(cwd: string, facts: SessionFacts = PLAIN): string {
  const base = [
    `You are agentloop, a coding agent working in ${cwd}.`,
    "Use the tools to inspect files, change them and run commands; act rather than describe.",
    "When the task is done, reply with a short summary of what you did.",
  ].join("\n");
  const sections = facts.sections ?? [];
  return [base, ...sections, sessionContext(cwd, facts)].filter(Boolean).join("\n\n");
}

/** The environment section and the project's instructions: what every agent of the session shares. */
export function sessionContext(cwd: string, facts: SessionFacts = PLAIN): string {
  const instructions = facts.instructions ?? projectInstructions(cwd, facts.env);
  return [environmentSection(cwd, facts), instructions].filter(Boolean).join("\n\n");
}

/**
 * The personal, project and local instructions (skills/project-memory.ts) with their imports.
 * What could not be imported is left out here; setup tells the user (readProjectMemory).
 */
export function projectInstructions(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return readProjectMemory({ cwd, env }).text;
}

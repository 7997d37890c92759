// Plays a random session plan through agentloop the way the command line does: one agent
// session per process, every event written to the session file, Ctrl-C aborting the running
// turn, a crash abandoning everything mid-event, and --resume reading the file back. After
// every event it checks that the file holds exactly the history in memory.

import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { Message } from "../../src/core/messages.js";
import type { Provider } from "../../src/providers/provider.js";
import { type AgentSession, createAgentSession } from "../../src/session/agent-session.js";
import { findSessionToResume } from "../../src/session/resume.js";
import {
  newSessionId,
  openSessionWriter,
  readSession,
  SESSION_FORMAT_VERSION,
  type SessionHeader,
  type SessionProblem,
  type SessionWriter,
} from "../../src/session/session-file.js";
import { createToolbox } from "../../src/tools/toolbox.js";
import { createProbeTool } from "./probe-tool.js";
import { INTERRUPT_MARKER, type ModelTurn, type SessionPlan, type Step } from "./session-plan.js";

export const MODEL = "claude-test-1";

/** Where the model's answers come from: a scripted provider or the fake server. */
export interface ModelWorld {
  /** The provider of one agentloop process. Repairs go to the session file, as in the CLI. */
  provider(onRepair: (description: string) => void): Provider;
  /** What the requests of the next prompt get, in order. */
  expectTurns(turns: ModelTurn[]): void;
}

interface RunningAgent {
  session: AgentSession;
  writer: SessionWriter;
  /** Lines earlier crashes left cut off in the file; resuming reports and skips each one. */
  tornLines: number;
}

export async function runPlan(plan: SessionPlan, world: ModelWorld): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-property-"));
  let keyboard = new AbortController();
  let tornLines = 0;
  const start = (resumeId?: string) =>
    startAgent(directory, world, plan.maxTurns, () => keyboard.abort(), { resumeId, tornLines });
  // Undefined while one process ends and the next starts, so a failure never closes twice.
  let agent: RunningAgent | undefined = start();
  try {
    for (const step of plan.steps) {
      const { session, writer } = agent;
      if (step.kind === "resume") {
        agent = undefined;
        await session.close();
        agent = start(session.id);
        continue;
      }
      world.expectTurns(step.turns);
      keyboard = new AbortController();
      const crash = await runPrompt(agent, step, keyboard);
      if (crash) {
        // The process is gone: its requests stop, its file closes, nothing else runs.
        agent = undefined;
        keyboard.abort();
        writer.close();
        if (crash === "torn_write") {
          appendFileSync(writer.path, '{"type":"message","at":"2026-');
          tornLines += 1;
        }
        agent = start(session.id);
      }
    }
  } finally {
    await agent?.session.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

function startAgent(
  directory: string,
  world: ModelWorld,
  maxTurns: number,
  interrupt: () => void,
  { resumeId, tornLines }: { resumeId?: string; tornLines: number },
): RunningAgent {
  const { header, messages, added } = sessionToStart(directory, resumeId);
  const writer = openSessionWriter(directory, header, { resume: resumeId !== undefined });
  for (const message of added) writer.recordMessage(message);
  const session = createAgentSession({
    provider: world.provider((description) => writer.recordRepair(description)),
    toolbox: createToolbox([createProbeTool(interrupt)]),
    system: "You are agentloop under test.",
    maxTurns,
    writer,
    messages,
  });
  const agent = { session, writer, tornLines };
  expectFileMatchesMemory(agent);
  return agent;
}

/** Runs one prompt to its end, or to the planned cut. Returns how the process died, if it did. */
async function runPrompt(
  agent: RunningAgent,
  step: Extract<Step, { kind: "prompt" }>,
  keyboard: AbortController,
): Promise<"crash" | "torn_write" | null> {
  const events = agent.session.runPrompt(step.text, keyboard.signal);
  for (let count = 1; ; count += 1) {
    const next = await events.next();
    if (next.done) break;
    expectFileMatchesMemory(agent);
    if (step.cut?.afterEvent === count) {
      if (step.cut.how !== "interrupt") return step.cut.how;
      keyboard.abort();
    }
    const event = next.value;
    if (event.type === "text_delta" && event.text.includes(INTERRUPT_MARKER)) keyboard.abort();
  }
  expectFileMatchesMemory(agent);
  return null;
}

function expectFileMatchesMemory(agent: RunningAgent): void {
  const file = readSession(agent.writer.path);
  const memory = agent.session.state.messages;
  // Comparing the JSON is exact (the file holds that JSON) and fast; expect() gives the diff.
  const same = JSON.stringify(file.messages) === JSON.stringify(memory);
  if (file.problems.length === agent.tornLines && same) return;
  expect(file.problems).toHaveLength(agent.tornLines);
  expect(file.messages).toEqual(memory);
}

/**
 * What a run starts from: a new session's header, or, given the id of one to resume, its
 * header, history, the answers resuming added, and the lines it could not read.
 */
export function sessionToStart(
  directory: string,
  resumeId?: string,
): { header: SessionHeader; messages?: Message[]; added: Message[]; problems: SessionProblem[] } {
  if (resumeId !== undefined) return findSessionToResume(directory, directory, { id: resumeId });
  const header: SessionHeader = {
    type: "session",
    version: SESSION_FORMAT_VERSION,
    id: newSessionId(),
    cwd: directory,
    model: MODEL,
    provider: "anthropic",
    startedAt: new Date().toISOString(),
  };
  return { header, added: [], problems: [] };
}

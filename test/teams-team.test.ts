// The team itself, with scripted models: who may join it (names, the cap), messages between
// teammates that wake an idle one, and an idle teammate woken once for a task it may claim.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentInput, PreparedChild } from "../src/agents/agent-tool.js";
import { BUILT_IN_AGENTS } from "../src/agents/built-ins.js";
import type { LoopEvent } from "../src/core/events.js";
import type { Message } from "../src/core/messages.js";
import type { QueuedPromptRuns } from "../src/core/part.js";
import { openSessionWriter, SESSION_FORMAT_VERSION } from "../src/session/session-file.js";
import { openBoard } from "../src/tasks/board.js";
import { createTeam, MAX_TEAMMATES, type Team, type TeamHost } from "../src/teams/team.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { type Script, scriptedProvider, text } from "./support/scripted-provider.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function fixture(runs: QueuedPromptRuns = "while-work-under-way") {
  const root = mkdtempSync(join(tmpdir(), "agentloop-team-"));
  roots.push(root);
  const env = { XDG_STATE_HOME: join(root, "state") };
  const announced: LoopEvent[] = [];
  const host: TeamHost = {
    runsQueuedPrompts: () => runs,
    announce: (events: LoopEvent[]) => {
      announced.push(...events);
    },
    directory: () => join(root, "session-1"),
  };
  const team = createTeam({ env, maxTurns: 10, host: () => host, leadMail: () => undefined });
  let started = 0;
  /** Starts `name` on a scripted model; returns what that model was sent. */
  async function start(name: string, script: Script[], prompt = `${name}: begin.`) {
    const provider = scriptedProvider(script);
    started += 1;
    const agentId = `a${started}`;
    const writer = openSessionWriter(join(root, "agents"), {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id: agentId,
      cwd: root,
      model: provider.model,
      provider: provider.name,
      startedAt: new Date().toISOString(),
    });
    const child: PreparedChild = {
      agent: BUILT_IN_AGENTS[0] as PreparedChild["agent"],
      agentId,
      writer,
      provider,
      system: "",
      limits: [],
      beforeStop: undefined,
      toolbox: (extra) => createToolbox(extra),
      workspace: undefined,
      warning: null,
      finish: async () => undefined,
    };
    const input: AgentInput = { description: name, prompt, name, run_in_background: true };
    const result = await team.agents.start(input, child, { signal: new AbortController().signal });
    expect(result.isError).toBe(false);
    return provider.requests;
  }
  return { team, env, host, announced, start, board: () => openBoard("session-1", env) };
}

/** Waits until `done` holds, checking every few milliseconds (at most two seconds). */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 2000) throw new Error("it did not happen within two seconds");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const lastText = (requests: Message[][]) => JSON.stringify(requests.at(-1)?.at(-1)?.content);
const refusal = (team: Team, name?: string) =>
  team.agents.refusal({ description: "x", prompt: "x", name, run_in_background: true });

describe("a team", () => {
  it("takes teammates by a name no member has, at most four", async () => {
    const { team, start } = fixture();
    expect(refusal(team)).toBe(
      'A teammate needs a name (such as "alice"): members are addressed by it.',
    );
    expect(refusal(team, "two words")).toMatch(/^"two words" cannot name a teammate/);
    expect(refusal(team, "lead")).toBe(
      'There is a member named "lead" already; the members are lead.',
    );
    for (const name of ["alice", "bob", "carol", "dave"])
      await start(name, [{ content: [text("Done.")] }]);
    expect(refusal(team, "bob")).toMatch(/^There is a member named "bob" already/);
    expect(refusal(team, "erin")).toBe(
      `The team has ${MAX_TEAMMATES} teammates, the most it may have: message one of them (alice, bob, carol, dave) instead.`,
    );
    await team.stop();
  });

  it("starts none where no front end brings messages to the lead", () => {
    const { team } = fixture("never");
    expect(refusal(team, "alice")).toBe(
      "Teammates need a front end that brings their messages to you: the REPL or -p.",
    );
  });

  it("wakes an idle teammate with a message, in its same history", async () => {
    const { team, start, announced } = fixture();
    const bob = await start("bob", [{ content: [text("Ready.")] }, { content: [text("Thanks.")] }]);
    await until(() => team.teammates()[0]?.phase() === "idle");
    expect(team.send("lead", "bob", "hi")).toBeNull();
    await until(() => bob.length === 2);
    expect(bob[1]?.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(lastText(bob)).toContain('<teammate-message from=\\"lead\\">\\nhi\\n');
    expect(team.send("bob", "carol", "hi")).toBe(
      'There is no member "carol" on your team; its members are lead, bob.',
    );
    const lines = announced.flatMap((event) => (event.type === "part" ? [event.line] : []));
    expect(lines).toContain("lead → bob: hi");
    expect(lines).toContain("bob reads the message from lead");
    await team.stop();
    expect(team.send("lead", "bob", "still there?")).toBe(
      "bob has stopped and reads no more messages.",
    );
  });

  it("wakes an idle teammate once for a task it may claim", async () => {
    const { team, start, board } = fixture();
    const alice = await start("alice", [
      { content: [text("Ready.")] },
      { content: [text("On it.")] },
      { content: [text("Nothing else.")] },
    ]);
    await until(() => team.teammates()[0]?.phase() === "idle");
    await board().create({ subject: "Write the schema", description: "", blocked_by: [] });
    team.boardChanged();
    await until(() => alice.length === 2);
    expect(lastText(alice)).toContain(
      "Task #1 on the board is ready to start and no one else has it",
    );
    await until(() => team.teammates()[0]?.phase() === "idle");
    team.boardChanged();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alice).toHaveLength(2);
    await team.stop();
  });

  it("tells the lead of a teammate whose run failed, and that it stopped", async () => {
    const { team, start, announced } = fixture();
    await start("bob", [() => new Error("the model is gone")]);
    await until(() => team.teammates()[0]?.phase() === "stopped");
    await until(() =>
      announced.some((event) => event.type === "part" && event.name === "teammate_stopped"),
    );
    const said = team.lead.take();
    expect(said.map((message) => message.from)).toEqual(["bob"]);
    expect(said[0]?.text).toMatch(/\[agent bob a1: error: the model is gone; 0 tool calls/);
    expect(await team.stop()).toEqual([]);
  });
});

// How a session puts its parts together (src/session/agent-session.ts with src/core/part.ts):
// the order of the list is the order of their notes, events and stop checks; the first part to
// refuse a prompt keeps it out; closing goes the other way. And the list itself, pinned.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SESSION_PARTS } from "../src/assembly/parts.js";
import type { LoopEvent } from "../src/core/events.js";
import { emptyUsage } from "../src/core/messages.js";
import type { PartHost, SessionPart } from "../src/core/part.js";
import { createAgentSession } from "../src/session/agent-session.js";
import { costOf } from "../src/session/cost.js";
import {
  newSessionId,
  openSessionWriter,
  SESSION_FORMAT_VERSION,
} from "../src/session/session-file.js";
import { createToolbox } from "../src/tools/toolbox.js";
import { scriptedProvider, text } from "./support/scripted-provider.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function sessionWith(
  parts: SessionPart[],
  replies = [{ content: [text("Done.")] }],
  model = "scripted-model",
) {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-parts-"));
  directories.push(directory);
  const writer = openSessionWriter(directory, {
    type: "session",
    version: SESSION_FORMAT_VERSION,
    id: newSessionId(),
    cwd: directory,
    model: "scripted",
    provider: "scripted",
    startedAt: new Date().toISOString(),
  });
  const provider = Object.assign(scriptedProvider(replies), { model });
  const session = createAgentSession({
    provider,
    toolbox: createToolbox([]),
    system: "test",
    maxTurns: 5,
    writer,
    parts,
  });
  return { session, provider };
}

async function run(session: ReturnType<typeof sessionWith>["session"], prompt: string) {
  const events: LoopEvent[] = [];
  const steps = session.runPrompt(prompt, new AbortController().signal);
  let step = await steps.next();
  for (; !step.done; step = await steps.next()) events.push(step.value);
  return { events, stop: step.value };
}

const partEvent = (part: string, name: string): LoopEvent => ({
  type: "part",
  part,
  name,
  line: `${part} ${name}`,
});

describe("a session's parts", () => {
  it("add their notes after the prompt in the order of the list", async () => {
    const note = (name: string): SessionPart => ({
      name,
      promptNotes: () => [{ text: `note from ${name}` }],
    });
    const { session, provider } = sessionWith([note("first"), note("second")]);
    await run(session, "hello");
    expect(provider.requests[0]?.[0]?.content).toEqual([
      { type: "text", text: "hello" },
      { type: "text", text: "note from first" },
      { type: "text", text: "note from second" },
    ]);
    await session.close();
  });

  it("pass on their events after a loop event, in the order of the list", async () => {
    const follower = (name: string): SessionPart => ({
      name,
      eventsAfter: (event) => (event.type === "assistant_message" ? [partEvent(name, "saw")] : []),
    });
    const { session } = sessionWith([follower("first"), follower("second")]);
    const { events } = await run(session, "hello");
    const index = events.findIndex((event) => event.type === "assistant_message");
    expect(events.slice(index + 1, index + 3)).toEqual([
      partEvent("first", "saw"),
      partEvent("second", "saw"),
    ]);
    await session.close();
  });

  it("keep a prompt out when one refuses it, and later parts are not asked", async () => {
    const asked: string[] = [];
    const screen = (name: string, refusal: string | null): SessionPart => ({
      name,
      screenPrompt: async () => {
        asked.push(name);
        return refusal;
      },
    });
    const { session, provider } = sessionWith([
      screen("first", null),
      screen("second", "Not today."),
      screen("third", null),
    ]);
    const { stop } = await run(session, "hello");
    expect(stop).toMatchObject({ reason: "error", detail: "Not today." });
    expect(asked).toEqual(["first", "second"]);
    expect(provider.requests).toHaveLength(0);
    expect(session.state.messages).toHaveLength(0);
    await session.close();
  });

  it("let the first part that answers decide whether the loop stops", async () => {
    let checks = 0;
    const goOnOnce: SessionPart = {
      name: "judge",
      stopCheck: () => async () => (checks++ === 0 ? { goOn: "Check the tests too." } : null),
    };
    const never: SessionPart = {
      name: "never",
      stopCheck: () => async () => ({ detail: "never" }),
    };
    const { session, provider } = sessionWith(
      [goOnOnce, never],
      [{ content: [text("Done.")] }, { content: [text("Tests pass.")] }],
    );
    const { stop } = await run(session, "fix it");
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]?.at(-1)).toEqual({ role: "user", content: "Check the tests too." });
    // The second answer: the judge has nothing to say, so the next part decides.
    expect(stop).toMatchObject({ reason: "end_turn", detail: "never" });
    await session.close();
  });

  it("read the session's history as it is now, also as they end their work", async () => {
    let host: PartHost | undefined;
    const seen: string[][] = [];
    const reader: SessionPart = {
      name: "reader",
      attach: (given) => {
        host = given;
      },
      endWork: async () => {
        seen.push((host?.history() ?? []).map((message) => message.role));
        return [];
      },
    };
    const { session } = sessionWith([reader]);
    expect(host?.history()).toEqual([]);
    await run(session, "hello");
    expect(host?.history()).toBe(session.state.messages);
    await session.close();
    expect(seen).toEqual([["user", "assistant"]]);
  });

  it("end the run with the reason a part's stop check names, else as the answer ended", async () => {
    const judge: SessionPart = {
      name: "judge",
      stopCheck: () => async () => ({ detail: "The goal cannot be met.", reason: "error" }),
    };
    const { session } = sessionWith([judge]);
    const { stop } = await run(session, "fix it");
    expect(stop).toMatchObject({ reason: "error", detail: "The goal cannot be met." });
    await session.close();
  });

  it("count the tokens of a part's own request in the session's usage and cost, at its model's price", async () => {
    const judgeUsage = { ...emptyUsage(), input_tokens: 1000, output_tokens: 100 };
    const judged: LoopEvent = {
      type: "part",
      part: "judge",
      name: "checked",
      line: "judge checked",
      usage: judgeUsage,
      model: "claude-opus-4-5",
    };
    let pending = [judged];
    const judge: SessionPart = {
      name: "judge",
      eventsBefore: () => pending.splice(0),
    };
    const { session } = sessionWith([judge], undefined, "claude-haiku-4-5");
    const { events } = await run(session, "fix it");
    const reply = events.find((event) => event.type === "assistant_message");
    if (reply?.type !== "assistant_message") throw new Error("no reply");
    expect(events).toContainEqual(judged);
    expect(session.usage().output_tokens).toBe(reply.usage.output_tokens + 100);
    expect(session.usage().input_tokens).toBe(reply.usage.input_tokens + 1000);
    const replyCost = costOf("claude-haiku-4-5", reply.usage) as number;
    const judgeCost = costOf("claude-opus-4-5", judgeUsage) as number;
    expect(judgeCost).not.toBe(costOf("claude-haiku-4-5", judgeUsage));
    expect(session.cost()).toBeCloseTo(replyCost + judgeCost, 10);
    pending = [];
    await session.close();
  });

  it("close in the reverse of the list, after the work beside the loop has ended", async () => {
    const order: string[] = [];
    const closing = (name: string): SessionPart => ({
      name,
      endWork: async () => {
        order.push(`${name} ends its work`);
        return [];
      },
      close: async () => {
        order.push(`${name} closes`);
        return [partEvent(name, "closed")];
      },
    });
    const { session } = sessionWith([closing("first"), closing("second")]);
    await session.close();
    expect(order).toEqual([
      "first ends its work",
      "second ends its work",
      "second closes",
      "first closes",
    ]);
  });
});

describe("a part's rewind of the conversation", () => {
  it("makes the next request go on from the history it gave, and the loop keeps nothing of the one before", async () => {
    let host: PartHost | undefined;
    const { session, provider } = sessionWith(
      [{ name: "rewinder", attach: (given) => (host = given) }],
      [
        { content: [text("First answer.")] },
        { content: [text("Second answer.")] },
        { content: [text("Third answer.")] },
      ],
    );
    await run(session, "first prompt");
    const afterFirst = [...session.state.messages];
    await run(session, "second prompt");
    host?.replaceHistory(afterFirst);
    expect(session.state.messages).toEqual(afterFirst);
    await run(session, "third prompt");
    expect(provider.requests[2]?.map((message) => message.content)).toEqual([
      "first prompt",
      [text("First answer.")],
      "third prompt",
    ]);
  });
});

describe("the list a session is assembled from", () => {
  it("holds the chapters in the documented order", () => {
    expect(SESSION_PARTS.map((entry) => entry.name)).toEqual([
      "plugins",
      "planning",
      "hooks",
      "skills",
      "memory",
      "agents",
      "background",
      "tasks",
      "teams",
      "goal",
      "mcp",
      "web",
      "schedule",
      "lsp",
      "checkpoints",
    ]);
  });
});

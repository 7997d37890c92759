// Agent teams (course s13) through the built CLI against the fake Anthropic server, teams on:
// the lead starts alice and bob in the background; alice messages the lead and finishes, and
// the lead's next request carries both; bob's message to a name nobody has is an error naming
// the members; alice writes in her own worktree, never in the person's tree; the run exits 0
// with no process left. A lead's message reaches a teammate in a long tool loop before it ends.
// The fake model tells the agents apart by their first message: each one's own prompt. The
// setting's rules are in teams-start.test.ts.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSession } from "../src/session/session-file.js";
import {
  type FakeModel,
  freshSandbox,
  type InterceptedRequest,
  interruptWhen,
  onlySession,
  runCli,
  runForBodies,
  type Sandbox,
  startFakeModel,
  writeUserSettings,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { git, withRepository } from "./support/git-repository.js";
import { processesIn } from "./support/processes.js";

type Block = {
  type: string;
  text?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
};
type Body = {
  tools?: { name: string; input_schema: { properties: Record<string, unknown> } }[];
  messages: { role: string; content: string | Block[] }[];
};
type Event = { type: string; part?: string; name?: string; line?: string };

const LEAD_PROMPT = "Split the work.";
const ALICE_PROMPT = "ALICE: write the schema notes.";
const BOB_PROMPT = "BOB: say hello to carol.";

/** Who sent a request: the agent whose prompt is its first message. */
function whose(body: Body): string {
  const first = body.messages[0]?.content;
  const said =
    typeof first === "string" ? first : (first?.find((b) => b.type === "text")?.text ?? "");
  return said.split(":")[0] ?? "";
}

function lastUserBlocks(body: Body): Block[] {
  const last = body.messages.at(-1);
  if (last?.role !== "user") return [];
  return typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
}

function resultOf(body: Body, id: string): { text: string; isError: boolean } | undefined {
  const found = lastUserBlocks(body).find((b) => b.type === "tool_result" && b.tool_use_id === id);
  if (!found) return undefined;
  const content = found.content;
  const said =
    typeof content === "string"
      ? content
      : (content as { text?: string }[]).map((part) => part.text ?? "").join("");
  return { text: said, isError: found.is_error === true };
}

/** The lead's call that starts `name` in the background on `prompt`, as call `id`. */
function teammate(name: string, prompt: string, id = `start-${name}`) {
  return toolUse(id, "agent", {
    description: `${name}'s part`,
    prompt,
    name,
    run_in_background: true,
  });
}

/** A script per agent: each agent's requests are answered in turn by its own list. */
function routed(scripts: Record<string, (request: InterceptedRequest, index: number) => FakeTurn>) {
  const counts = new Map<string, number>();
  return {
    intercept(request: InterceptedRequest): FakeTurn | undefined {
      const who = request.firstUserText.split(":")[0] ?? "";
      const script = scripts[who] ?? scripts.lead;
      const index = counts.get(who) ?? 0;
      counts.set(who, index + 1);
      return script?.(request, index);
    },
  };
}

describe("agent teams through the CLI", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function run(sandbox: Sandbox, args: string[], intercept: ReturnType<typeof routed>) {
    const ran = await runForBodies<Body>(model, sandbox, [], args, intercept);
    return { ...ran, events: ran.events as Event[] };
  }

  it("changes nothing without teams, and gives the agent tool Claude Code's team fields with them", async () => {
    const sandbox = freshSandbox();
    const script = routed({ [LEAD_PROMPT]: () => reply(text("Hi.")) });
    const off = await run(sandbox, ["-p", LEAD_PROMPT], script);
    const on = await run(sandbox, ["--teams", "-p", LEAD_PROMPT], script);
    expect(off.code, off.stderr).toBe(0);
    expect(on.code, on.stderr).toBe(0);
    const tools = (body: Body | undefined) => body?.tools?.map((tool) => tool.name) ?? [];
    const agentFields = (body: Body | undefined) =>
      Object.keys(
        body?.tools?.find((tool) => tool.name === "agent")?.input_schema.properties ?? {},
      );
    expect(tools(off.bodies[0])).not.toContain("send_message");
    expect(agentFields(off.bodies[0])).not.toContain("run_in_background");
    expect(tools(on.bodies[0])).toEqual(
      expect.arrayContaining(["agent", "task_create", "task_update", "send_message"]),
    );
    expect(agentFields(on.bodies[0])).toEqual(
      expect.arrayContaining(["name", "run_in_background"]),
    );
  }, 30_000);

  it("runs a lead with two teammates: messages, final answers, a misspelled name, worktrees", async () => {
    const sandbox = withRepository(freshSandbox());
    writeUserSettings(sandbox, { teams: true });
    const script = routed({
      // Bob first, alice last: the lead's round ends before alice can have said anything, and
      // the lead then waits in a tool round of its own while alice works and finishes.
      [LEAD_PROMPT]: (_, index) =>
        [
          reply(teammate("bob", BOB_PROMPT), teammate("alice", ALICE_PROMPT)),
          reply(toolUse("wait", "bash", { command: "sleep 3" })),
        ][index] ?? reply(text("Alice wrote the notes; bob is done.")),
      ALICE: (_, index) =>
        index === 0
          ? reply(
              toolUse("tell", "send_message", { to: "lead", text: "The schema is in notes.md." }),
              toolUse("notes", "write", { file_path: "notes.md", content: "users(id, name)\n" }),
            )
          : reply(text("Alice done: notes.md holds the schema.")),
      // Bob looks around first, so that alice is on the team when he writes.
      BOB: (_, index) =>
        [
          reply(toolUse("look", "bash", { command: "sleep 1" })),
          reply(toolUse("hello", "send_message", { to: "carol", text: "Hello." })),
        ][index] ?? reply(text("Bob done.")),
    });
    const ran = await run(sandbox, ["-p", LEAD_PROMPT], script);
    expect(ran.code, ran.stderr).toBe(0);

    const lead = ran.bodies.filter((body) => whose(body) === "Split the work.");
    const afterWait = lead.find((body) => resultOf(body, "wait"));
    const carried = lastUserBlocks(afterWait as Body)
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("\n");
    expect(carried).toContain('<teammate-message from="alice">\nThe schema is in notes.md.\n');
    expect(carried).toMatch(
      /<teammate-message from="alice">\nAlice done: notes\.md holds the schema\.\n\[agent alice [0-9a-f]{4}: completed; 2 tool calls/,
    );

    const bob = ran.bodies.filter((body) => whose(body) === "BOB");
    expect(bob.map((body) => resultOf(body, "hello")).find(Boolean)).toEqual({
      text: 'There is no member "carol" on your team; its members are lead, bob, alice.',
      isError: true,
    });

    const lines = ran.events
      .filter((event) => event.part === "teams" && event.name === "message")
      .map((event) => event.line);
    expect(lines.filter((line) => line?.startsWith("alice"))).toEqual([
      "alice → lead: The schema is in notes.md.",
      expect.stringMatching(/^alice → lead: Alice done: notes\.md holds the schema\./),
    ]);
    const stopped = ran.events.filter((event) => event.name === "teammate_stopped");
    expect(stopped.map((event) => event.line)).toEqual([
      "teammate bob stopped; worktree removed: no changes",
      expect.stringMatching(/^teammate alice stopped; .*agentloop\/alice-/),
    ]);

    // Alice wrote in her own worktree, committed on her branch; the person's tree is as it was.
    expect(existsSync(join(sandbox.workspace, "notes.md"))).toBe(false);
    expect(git(sandbox.workspace, "status", "--porcelain")).toBe("");
    const branch = git(
      sandbox.workspace,
      "branch",
      "--list",
      "agentloop/alice-*",
      "--format=%(refname:short)",
    );
    expect(git(sandbox.workspace, "show", `${branch}:notes.md`)).toBe("users(id, name)");
    expect(processesIn(sandbox.workspace)).toEqual([]);

    // The session file keeps the messages in the order sent, and folds alice's own transcript
    // under the call that started her, as a subagent's.
    const session = onlySession(sandbox);
    const kept = session.entries.flatMap((entry) =>
      entry.type === "part" && entry.part === "teams" && entry.name === "message"
        ? [entry.line]
        : [],
    );
    expect(kept).toEqual(lines);
    const stoppedThere = session.entries.filter(
      (entry) => entry.type === "part" && entry.name === "teammate_stopped",
    );
    expect(stoppedThere).toHaveLength(2);
    const folded = session.entries.find(
      (entry) => entry.type === "subagent" && entry.agent_type === "alice",
    );
    expect(folded).toMatchObject({ tool_use_id: "start-alice" });
    const transcript = join(dirname(session.path), (folded as { transcript: string }).transcript);
    expect(parseSession(readFileSync(transcript, "utf8")).messages[0]?.content).toBe(ALICE_PROMPT);
  }, 30_000);

  it("brings a lead's message to a teammate in a long tool loop before its task ends", async () => {
    const sandbox = freshSandbox();
    const order = "Stop now and report.";
    const script = routed({
      [LEAD_PROMPT]: (_, index) =>
        [
          reply(teammate("alice", "ALICE: check the build until told to stop.", "start")),
          reply(toolUse("order", "send_message", { to: "alice", text: order })),
          reply(text("Waiting for alice.")),
        ][index] ?? reply(text("Thanks, all done.")),
      // Alice checks over and over, one tool round after another, until she reads the order.
      ALICE: (request, index) =>
        request.lastUserText.includes(order)
          ? reply(text("Stopping as told."))
          : index < 50
            ? reply(toolUse(`check${index}`, "bash", { command: "sleep 0.2" }))
            : reply(text("Nobody told me to stop.")),
    });
    const ran = await run(sandbox, ["--teams", "-p", LEAD_PROMPT], script);
    expect(ran.code, ran.stderr).toBe(0);

    const alice = ran.bodies.filter((body) => whose(body) === "ALICE");
    const told = alice.find((body) =>
      lastUserBlocks(body).some((block) => block.type === "text" && block.text?.includes(order)),
    );
    // It came between two tool rounds: beside a tool result, in the middle of her loop.
    expect(lastUserBlocks(told as Body).map((block) => block.type)).toEqual([
      "tool_result",
      "text",
    ]);
    expect(alice.indexOf(told as Body)).toBeGreaterThan(0);

    const lead = ran.bodies.filter((body) => whose(body) === "Split the work.");
    const woken = lead.at(-1) as Body;
    expect(
      lastUserBlocks(woken)
        .map((block) => block.text)
        .join("\n"),
    ).toMatch(
      /^<teammate-message from="alice">\nStopping as told\.\n\[agent alice [0-9a-f]{4}: completed;/,
    );
    expect(processesIn(sandbox.workspace)).toEqual([]);
  }, 30_000);

  it("stops the team on Ctrl-C while the lead waits for it, leaving nothing running", async () => {
    const sandbox = freshSandbox();
    const script = routed({
      [LEAD_PROMPT]: (_, index) =>
        index === 0
          ? reply(teammate("alice", "ALICE: wait for the build.", "start"))
          : reply(text("Alice is on it.")),
      ALICE: () => reply(toolUse("build", "bash", { command: "sleep 30" })),
    });
    model.script([], script);
    // Alice asked for her sleep, and the lead's turn is over: the run waits for her.
    const interrupt = interruptWhen(
      (seen) => seen.includes("sleep 30") && seen.includes("Alice is on it."),
    );
    const ran = await runCli(["--output-format", "stream-json", "--teams", "-p", LEAD_PROMPT], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      onSpawn: interrupt.onSpawn,
    });
    model.script([]);
    expect(interrupt.at(), ran.stderr).toBeGreaterThan(0);
    expect(ran.code).toBe(130);
    expect(Date.now() - interrupt.at()).toBeLessThan(5000);
    expect(processesIn(sandbox.workspace)).toEqual([]);
    const events = ran.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Event);
    expect(events.find((event) => event.name === "teammate_stopped")?.line).toBe(
      "teammate alice stopped",
    );
  }, 30_000);

  it("holds a teammate to the session's --max-cost: a loop without end stops, and the run says so", async () => {
    const sandbox = freshSandbox();
    const script = routed({
      [LEAD_PROMPT]: (_, index) =>
        index === 0
          ? reply(teammate("alice", "ALICE: check forever.", "start"))
          : reply(text("Waiting for alice.")),
      ALICE: (_, index) =>
        index < 100
          ? reply(toolUse(`check${index}`, "bash", { command: `echo ${index}` }))
          : reply(text("I ran out of checks.")),
    });
    const ran = await run(sandbox, ["--teams", "--max-cost", "0.008", "-p", LEAD_PROMPT], script);
    expect(ran.code, ran.stderr).toBe(3);
    const alice = ran.bodies.filter((body) => whose(body) === "ALICE");
    expect(alice.length).toBeGreaterThan(1);
    expect(alice.length).toBeLessThan(100);
    const answer = ran.events.find(
      (event) => event.name === "message" && event.line?.startsWith("alice → lead"),
    );
    expect(answer?.line).toMatch(/\[agent alice [0-9a-f]{4}: error: .*cost/);
  }, 30_000);
});

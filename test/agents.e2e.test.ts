// Subagents (course s06) through the built CLI against the fake model servers, on the Anthropic
// protocol and on OpenAI's Responses protocol: what the child's requests carry, what comes back
// to the parent, definitions from .claude/agents/, concurrency, the turn limit, permissions,
// Ctrl-C, the child's transcript and the session's totals.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ANSWER_NOW } from "../src/agents/child-run.js";
import { resultText, type ToolResultBlock, type Usage } from "../src/core/messages.js";
import { costOf } from "../src/session/cost.js";
import { parseSession } from "../src/session/session-file.js";
import {
  type FakeModel,
  freshSandbox,
  HOSTED_DEFAULT_TOOLS,
  interruptWhen,
  onlySession,
  type Protocol,
  runCli,
  runStreamJson,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { processesIn } from "./support/processes.js";
import { validEvent } from "./support/schemas.js";

const STATUS =
  /\[agent (\S+) ([0-9a-f]{4}): ([^;]+); (\d+) tool calls?, ([\d,]+) tokens, (<?\$\d+\.\d{3}|cost unknown)\]$/;

type Event = { type: string; [key: string]: unknown };

/** What a request sent, the same for both protocols. */
interface Sent {
  tools: string[];
  system: string;
  /** The messages (Anthropic) or input items (Responses) of the conversation. */
  items: number;
  firstUserText: string;
  lastUserText: string;
  toolChoice: unknown;
}

function sentBy(protocol: Protocol, json: string): Sent {
  const body = JSON.parse(json);
  if (protocol === "anthropic") {
    const texts = (message: { content: unknown } | undefined) =>
      typeof message?.content === "string"
        ? message.content
        : ((message?.content as { type: string; text?: string }[] | undefined) ?? [])
            .flatMap((block) => (block.type === "text" ? [block.text] : []))
            .join("\n");
    const users = body.messages.filter((message: { role: string }) => message.role === "user");
    return {
      tools: (body.tools ?? []).map((tool: { name: string }) => tool.name),
      system: (body.system ?? []).map((block: { text: string }) => block.text).join("\n"),
      items: body.messages.length,
      firstUserText: texts(users[0]),
      lastUserText: texts(users.at(-1)),
      toolChoice: body.tool_choice?.type,
    };
  }
  if (protocol === "openai") {
    const messages = body.messages as { role: string; content: unknown; tool_calls?: unknown }[];
    const chatUsers = messages.filter((message) => message.role === "user");
    const chatText = (message: { content: unknown } | undefined) =>
      typeof message?.content === "string" ? message.content : "";
    return {
      tools: (body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name),
      system: chatText(messages.find((message) => message.role === "system")),
      items: messages.filter((message) => message.role !== "system").length,
      firstUserText: chatText(chatUsers[0]),
      lastUserText: chatText(chatUsers.at(-1)),
      toolChoice: body.tool_choice,
    };
  }
  const users = body.input.filter(
    (item: { type?: string; role?: string }) => item.type === "message" && item.role === "user",
  );
  const content = (item: { content: unknown } | undefined) =>
    typeof item?.content === "string"
      ? item.content
      : ((item?.content as { text?: string }[] | undefined) ?? [])
          .map((part) => part.text)
          .join("\n");
  return {
    // A hosted tool (the web search) has no name: its type names it.
    tools: (body.tools ?? []).map(
      (tool: { name?: string; type: string }) => tool.name ?? tool.type,
    ),
    system: body.instructions ?? "",
    items: body.input.length,
    firstUserText: content(users[0]),
    lastUserText: content(users.at(-1)),
    toolChoice: body.tool_choice,
  };
}

const agentCall = (id: string, prompt: string, subagentType?: string) =>
  toolUse(id, "agent", {
    description: "look into something",
    prompt,
    ...(subagentType ? { subagent_type: subagentType } : {}),
  });
const bash = (id: string, command: string) => toolUse(id, "bash", { command });

function writeDefinition(directory: string, file: string, text: string) {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, file), text);
}

describe.each(["anthropic", "openai", "responses"] as const)(
  "subagents on the %s protocol",
  (protocol) => {
    let model: FakeModel;
    beforeAll(async () => {
      model = await startFakeModel(protocol);
    });
    afterAll(() => model.close());

    async function run(
      turns: FakeTurn[],
      args: string[],
      options: { sandbox?: Sandbox; intercept?: Parameters<FakeModel["script"]>[1] } = {},
    ) {
      const sandbox = options.sandbox ?? freshSandbox();
      const ran = await runStreamJson(model, sandbox, turns, args, options.intercept);
      const { result, requests } = ran;
      const events = ran.events as Event[];
      const sent = requests.map((request) => sentBy(protocol, request.body));
      return { ...result, events, sandbox, requests, sent };
    }

    /** The parent's tool results, their content as the text the model reads. */
    const parentResults = (events: Event[]) =>
      events.flatMap((event) => {
        if (event.type !== "tool_end") return [];
        const result = event.result as ToolResultBlock;
        return [{ ...result, content: resultText(result.content) }];
      });
    const childEvents = (events: Event[]) =>
      events.filter((event) => event.type === "subagent") as (Event & {
        parent_tool_use_id: string;
        agentId: string;
        transcript: string;
        event: Event;
      })[];

    it("offers the agent tool in a default session's first request", async () => {
      const { code, sent } = await run([reply(text("Hello."))], ["say hello"]);
      expect(code).toBe(0);
      // The provider's search is offered where the API runs it: not on Chat Completions.
      const offered =
        protocol === "openai"
          ? HOSTED_DEFAULT_TOOLS.filter((name) => name !== "web_search")
          : HOSTED_DEFAULT_TOOLS;
      expect(sent[0]?.tools).toEqual(offered);
    });

    it("starts the child with only its prompt and no agent tool, and returns its text and a status line", async () => {
      const { code, events, sent, sandbox, requests } = await run(
        [
          reply(agentCall("call_a1", "Find where the port is configured.")),
          reply(text("The port is set in config/server.json, line 3.")),
          reply(text("It is in config/server.json.")),
        ],
        ["where is the port configured?"],
      );
      expect(code).toBe(0);
      expect(requests.map((request) => request.status)).toEqual([200, 200, 200]);
      const [parent, child] = sent as [Sent, Sent];
      expect(parent.tools).toContain("agent");
      expect(child.items).toBe(1);
      expect(child.firstUserText).toBe("Find where the port is configured.");
      expect(child.tools).toEqual(["bash", "read", "write", "edit"]);
      expect(child.system).toContain("You are a subagent");
      expect(child.system).toContain(
        `You are agentloop, a coding agent working in ${sandbox.workspace}.`,
      );

      const [result] = parentResults(events);
      expect(result?.is_error).toBe(false);
      const [answer, status] = (result?.content ?? "").split("\n");
      expect(answer).toBe("The port is set in config/server.json, line 3.");
      expect(status).toMatch(STATUS);
      expect(status).toMatch(/^\[agent general [0-9a-f]{4}: completed; 0 tool calls, /);

      // The child's events are in the stream under the call that ran it, valid by the schema.
      const children = childEvents(events);
      expect(children.length).toBeGreaterThan(0);
      for (const event of children) {
        expect(event.parent_tool_use_id).toBe("call_a1");
        expect(validEvent(event), JSON.stringify(validEvent.errors)).toBe(true);
      }
      expect(children.map((event) => event.event.type)).toContain("assistant_message");
    });

    it("lets a child run agents of its own when agentDepth allows it, one level at a time", async () => {
      const sandbox = freshSandbox();
      mkdirSync(join(sandbox.workspace, ".agentloop"), { recursive: true });
      writeFileSync(join(sandbox.workspace, ".agentloop", "settings.json"), '{"agentDepth": 2}');
      // A project's agentDepth widens what runs: it counts once the person's settings allow it.
      const config = join(sandbox.env.XDG_CONFIG_HOME as string, "agentloop");
      mkdirSync(config, { recursive: true });
      const allowed = { allowProjectSettings: [sandbox.workspace] };
      writeFileSync(join(config, "settings.json"), JSON.stringify(allowed));
      const { code, sent, events } = await run(
        [
          reply(agentCall("call_d1", "Delegate.")),
          reply(agentCall("call_d2", "Do the part.")),
          reply(text("Part done.")),
          reply(text("Delegated.")),
          reply(text("All done.")),
        ],
        ["go"],
        { sandbox },
      );
      expect(code).toBe(0);
      expect(sent.map((request) => request.tools.includes("agent"))).toEqual([
        true,
        true,
        false,
        true,
        true,
      ]);
      expect(sent[2]?.firstUserText).toBe("Do the part.");
      const grandchild = childEvents(events).find(
        (event) => event.parent_tool_use_id === "call_d2",
      );
      expect(grandchild).toBeDefined();
      expect(parentResults(events)[0]?.content).toMatch(/^Delegated\.\n\[agent general/);
    });

    it("keeps the child's transcript beside the session, and --continue goes on with a valid history", async () => {
      const first = await run(
        [
          reply(agentCall("call_t1", "List the files.")),
          reply(text("There is one file.")),
          reply(text("One file.")),
        ],
        ["how many files?"],
      );
      expect(first.code).toBe(0);
      const session = onlySession(first.sandbox);
      const link = session.entries.find((entry) => entry.type === "subagent");
      expect(link).toMatchObject({
        tool_use_id: "call_t1",
        agent_type: "general",
        reason: "end_turn",
      });
      const transcript = join(dirname(session.path), (link as { transcript: string }).transcript);
      expect(transcript).toBe(
        join(
          dirname(session.path),
          session.header?.id ?? "",
          "agents",
          `${(link as { agent_id: string }).agent_id}.jsonl`,
        ),
      );
      const child = parseSession(readFileSync(transcript, "utf8"));
      expect(child.problems).toEqual([]);
      expect(child.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
      expect(child.messages[0]?.content).toBe("List the files.");

      const again = await run([reply(text("Still one file."))], ["--continue", "and now?"], {
        sandbox: first.sandbox,
      });
      expect(again.code).toBe(0);
      expect(again.requests.map((request) => request.status)).toEqual([200]);
      expect(again.sent[0]?.lastUserText).toBe("and now?");
    });

    it("adds the child's tokens and cost to the session's totals", async () => {
      const { events } = await run(
        [
          reply(agentCall("call_c1", "Count the lines.")),
          reply(text("Forty-two lines, counted with great care and at some length.")),
          reply(text("42.")),
        ],
        ["count"],
      );
      const result = events.at(-1) as Event & {
        usage: { output_tokens: number };
        total_cost_usd: number | null;
      };
      const replies = (list: Event[]) =>
        list.flatMap((event) => (event.type === "assistant_message" ? [event.usage as Usage] : []));
      const children = childEvents(events);
      const model = children[0]?.model as string;
      const parentUsage = replies(events);
      const childUsage = replies(children.map((event) => event.event));
      expect(childUsage.length).toBe(1);
      const outputs = (usages: Usage[]) =>
        usages.reduce((sum, usage) => sum + usage.output_tokens, 0);
      expect(result.usage.output_tokens).toBe(outputs(parentUsage) + outputs(childUsage));
      const dollars = (usages: Usage[]) =>
        usages.reduce((sum, usage) => sum + (costOf(model, usage) as number), 0);
      expect(dollars(childUsage)).toBeGreaterThan(0);
      expect(result.total_cost_usd).toBeCloseTo(dollars(parentUsage) + dollars(childUsage), 10);
    });

    it("bounds a long answer like any tool result, keeping the status line and saving the whole", async () => {
      const long = Array.from({ length: 3000 }, (_, index) => `line ${index} of the answer`).join(
        "\n",
      );
      const { code, events } = await run(
        [reply(agentCall("call_l1", "Say a lot.")), reply(text(long)), reply(text("Long."))],
        ["say a lot"],
      );
      expect(code).toBe(0);
      const content = parentResults(events)[0]?.content ?? "";
      expect(content.length).toBeLessThan(51_000);
      expect(content.startsWith("line 0 of the answer\n")).toBe(true);
      expect(content.split("\n").at(-1)).toMatch(/^\[agent general [0-9a-f]{4}: completed;/);
      const saved = /saved in full to (\S+\.txt)/.exec(content)?.[1] as string;
      expect(readFileSync(saved, "utf8")).toContain("line 2999 of the answer");
    });

    it("stops a child at the session's --max-cost, and the parent after it", async () => {
      const { code, events, requests } = await run(
        [reply(agentCall("call_b1", "Spend.")), reply(text("Spent."))],
        ["--max-cost", "0.0000001", "spend"],
      );
      expect(code).toBe(3);
      // The parent's first request reached the budget: the child sent none, the parent no more.
      expect(requests).toHaveLength(1);
      expect(parentResults(events)[0]?.content).toMatch(
        /\[agent general [0-9a-f]{4}: error: Stopped: the session has cost \$[\d.]+, reaching --max-cost \$1e-7\.; 0 tool calls, 0 tokens, \$0\.000\]$/,
      );
      expect(events.at(-1)).toMatchObject({ type: "result", stop_reason: "max_cost" });
    });

    it("gives a child defined in .claude/agents/ only its tools and its body as the system prompt", async () => {
      const sandbox = freshSandbox();
      writeDefinition(
        join(sandbox.workspace, ".claude", "agents"),
        "reviewer.md",
        [
          "---",
          "name: reviewer",
          "description: Reviews a change for mistakes.",
          "tools: Read",
          "---",
          "You review code and report every mistake with its line.",
        ].join("\n"),
      );
      writeDefinition(
        join(sandbox.workspace, ".claude", "agents"),
        "broken.md",
        "---\nname: x\n---\n",
      );
      const { code, sent, events, stderr, requests } = await run(
        [
          reply(agentCall("call_r1", "Review main.ts.", "reviewer")),
          reply(text("No mistakes.")),
          reply(text("Reviewed.")),
        ],
        ["review"],
        { sandbox },
      );
      expect(code).toBe(0);
      expect(stderr).toContain("broken.md skipped: it has no description in its frontmatter");
      const [parent, child] = sent as [Sent, Sent];
      // The agent tool's description lists the agents with their descriptions.
      expect(requests[0]?.body).toContain("reviewer: Reviews a change for mistakes.");
      expect(parent.tools).toContain("agent");
      expect(child.tools).toEqual(["read"]);
      expect(
        child.system.startsWith("You review code and report every mistake with its line."),
      ).toBe(true);
      expect(parentResults(events)[0]?.content).toMatch(
        /^No mistakes\.\n\[agent reviewer [0-9a-f]{4}: completed;/,
      );
    });

    it("runs a child on the model its definition names, which its events carry for pricing", async () => {
      const other = { anthropic: "claude-sonnet-4-5", openai: "gpt-4.1", responses: "gpt-5" }[
        protocol
      ];
      const sandbox = freshSandbox();
      writeDefinition(
        join(sandbox.workspace, ".claude", "agents"),
        "other.md",
        `---\nname: other\ndescription: Runs elsewhere.\nmodel: ${other}\n---\nBe brief.\n`,
      );
      const { code, requests, events } = await run(
        [
          reply(agentCall("call_o1", "Say hi.", "other")),
          reply(text("Hi.")),
          reply(text("It said hi.")),
        ],
        ["hi"],
        { sandbox },
      );
      expect(code).toBe(0);
      const models = requests.map((request) => JSON.parse(request.body).model);
      expect(models[1]).toBe(other);
      expect(models[0]).not.toBe(other);
      expect(models[2]).toBe(models[0]);
      const children = childEvents(events);
      expect(new Set(children.map((event) => event.model))).toEqual(new Set([other]));
    });

    it("runs two explore children at the same time and returns their results in the order issued", async () => {
      // Each child runs a command that takes a second; its second request comes after it.
      const intercept = ({
        firstUserText,
        lastUserText,
      }: {
        firstUserText: string;
        lastUserText: string;
      }) => {
        const which = { "Find A.": "a", "Find B.": "b" }[firstUserText];
        if (!which) return undefined;
        if (lastUserText === firstUserText)
          return reply(bash(`call_s${which}`, `sleep 1; echo found-${which}`));
        return reply(text(`Found ${which.toUpperCase()}.`));
      };
      const { code, events, sent } = await run(
        [
          reply(
            agentCall("call_e1", "Find A.", "explore"),
            agentCall("call_e2", "Find B.", "explore"),
          ),
          reply(text("Both found.")),
        ],
        ["find both"],
        { intercept: { intercept } },
      );
      expect(code).toBe(0);
      const order = sent.flatMap((request) => {
        const which = { "Find A.": "A", "Find B.": "B" }[request.firstUserText];
        return which ? [`${which}${request.items === 1 ? 1 : 2}`] : [];
      });
      // Both first requests went out before either child's second: the runs overlapped.
      expect(order.slice(0, 2).sort()).toEqual(["A1", "B1"]);
      expect(order.slice(2).sort()).toEqual(["A2", "B2"]);
      const results = parentResults(events);
      expect(results.map((result) => result.tool_use_id)).toEqual(["call_e1", "call_e2"]);
      expect(results.map((result) => result.content.split("\n")[0])).toEqual([
        "Found A.",
        "Found B.",
      ]);
      for (const result of results)
        expect(result.content).toMatch(/\[agent explore [0-9a-f]{4}: completed; 1 tool call,/);
    });

    it("asks a child at its turn limit for its best answer with tool_choice none, and reports max_turns", async () => {
      const sandbox = freshSandbox();
      writeDefinition(
        join(sandbox.workspace, ".agentloop", "agents"),
        "brief.md",
        "---\nname: brief\ndescription: Looks briefly.\nmaxTurns: 1\n---\nLook briefly.\n",
      );
      const { code, events, sent } = await run(
        [
          reply(agentCall("call_m1", "Look around.", "brief")),
          reply(bash("call_m2", "echo looked")),
          reply(text("My best answer: nothing unusual.")),
          reply(text("Done.")),
        ],
        ["look"],
        { sandbox },
      );
      expect(code).toBe(0);
      const extra = sent[2] as Sent;
      expect(extra.toolChoice).toBe("none");
      expect(extra.tools).toEqual(["bash", "read", "write", "edit"]);
      expect(extra.lastUserText).toBe(ANSWER_NOW);
      expect(sent[1]?.toolChoice).toBeUndefined();
      expect(parentResults(events)[0]?.content).toMatch(
        /^My best answer: nothing unusual\.\n\[agent brief [0-9a-f]{4}: max_turns; 1 tool call,/,
      );
    });

    it("keeps a child under auto from writing outside the workspace", async () => {
      const sandbox = freshSandbox();
      // Not under /tmp, where the file tools may write in auto mode (the sandbox's /tmp is private).
      const elsewhere = mkdtempSync(join("/var/tmp", "agentloop-outside-"));
      onTestFinished(() => rmSync(elsewhere, { recursive: true, force: true }));
      const outside = join(elsewhere, "note.txt");
      const { code, events } = await run(
        [
          reply(agentCall("call_w1", "Write a note.")),
          reply(
            toolUse("call_w2", "write", { file_path: outside, content: "escaped" }),
            bash("call_w3", `echo escaped > ${outside}`),
          ),
          reply(text("I could not write it.")),
          reply(text("It could not.")),
        ],
        ["--permission-mode", "auto", "write a note outside"],
        { sandbox },
      );
      expect(code).toBe(0);
      expect(existsSync(outside)).toBe(false);
      const childResults = childEvents(events).flatMap((event) =>
        event.event.type === "tool_end" ? [event.event.result as ToolResultBlock] : [],
      );
      expect(childResults.map((result) => result.is_error)).toEqual([true, true]);
      expect(childResults[0]?.content).toContain("Permission denied");
    });

    it("runs explore's commands in the read-only sandbox, even when the session itself has none", async () => {
      const sandbox = freshSandbox();
      writeFileSync(join(sandbox.workspace, "notes.txt"), "the notes\n");
      const { code, events } = await run(
        [
          reply(agentCall("call_x1", "Read the notes.", "explore")),
          reply(bash("call_x2", "cat notes.txt; echo changed > notes.txt")),
          reply(text("The notes say: the notes.")),
          reply(text("Read.")),
        ],
        ["--permission-mode", "ask", "read the notes"],
        { sandbox },
      );
      expect(code).toBe(0);
      expect(readFileSync(join(sandbox.workspace, "notes.txt"), "utf8")).toBe("the notes\n");
      const [result] = childEvents(events).flatMap((event) =>
        event.event.type === "tool_end" ? [event.event.result as ToolResultBlock] : [],
      );
      expect(result?.content).toContain("the notes");
      expect(result?.content).toContain("Read-only file system");
    });

    it("ends the run within a few seconds on Ctrl-C during a child's sleep 30, leaving nothing running", async () => {
      const sandbox = freshSandbox();
      model.script([reply(agentCall("call_i1", "Wait.")), reply(bash("call_i2", "sleep 30"))]);
      const interrupt = interruptWhen(
        (seen) =>
          seen.includes('"parent_tool_use_id":"call_i1","agentType":"general"') &&
          seen.includes("sleep 30"),
      );
      const run = runCli(["--output-format", "stream-json", ...model.flags, "wait"], {
        env: { ...sandbox.env, ...model.env() },
        cwd: sandbox.workspace,
        onSpawn: interrupt.onSpawn,
      });
      const { code, stdout } = await run;
      model.script([]);
      expect(interrupt.at()).toBeGreaterThan(0);
      expect(code).toBe(130);
      expect(Date.now() - interrupt.at()).toBeLessThan(5000);
      expect(processesIn(sandbox.workspace)).toEqual([]);
      const events = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Event);
      const [result] = parentResults(events);
      expect(result?.content).toMatch(/\[agent general [0-9a-f]{4}: interrupted;/);
      expect(events.at(-1)).toMatchObject({ type: "result", stop_reason: "interrupted" });
    });
  },
);

// The todo list (chapter s05) through the built CLI against the fake Anthropic server: the tool's
// result and its errors, the todos event and the JSON result, the reminder, and the list kept
// across a compaction and --continue.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Message, resultText, type ToolResultBlock } from "../src/core/messages.js";
import {
  type FakeModel,
  freshSandbox,
  HOSTED_DEFAULT_TOOLS,
  onlySession,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";
import { validEvent, validResult } from "./support/schemas.js";
import { openRepl } from "./support/terminal.js";

// No permission mode: todo_write changes no file, so it runs without asking in every mode.
const WITH_TODOS = ["--tools", "bash,read,write,edit,todo_write"];
const YOLO = ["--permission-mode", "yolo"];
const REMINDER = "[agentloop: reminder: your todo list has unfinished items";

const plan = [
  { content: "Read the code", status: "completed" },
  { content: "Write the tests", status: "in_progress", activeForm: "Writing the tests" },
  { content: "Run them", status: "pending" },
];
const todoWrite = (id: string, todos: unknown) => reply(toolUse(id, "todo_write", { todos }));
const bashTurn = (k: number) => reply(toolUse(`toolu_b${k}`, "bash", { command: `echo ${k}` }));

type Event = { type: string; [key: string]: unknown };

describe("the todo_write tool", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function run(turns: FakeTurn[], args: string[], sandbox = freshSandbox()) {
    model.script(turns);
    const result = await runCli(["--output-format", "stream-json", ...WITH_TODOS, ...args], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    model.script([]);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Event);
    return { ...result, events, sandbox };
  }

  const toolResults = (events: Event[]) =>
    events.flatMap((event) => (event.type === "tool_end" ? [event.result as ToolResultBlock] : []));

  it("is not offered to a hosted model unless chosen", async () => {
    const sandbox = freshSandbox();
    model.script([reply(text("Hi."))]);
    const run = await runCli(["-p", "hi"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(run.code).toBe(0);
    const sent = JSON.parse(model.requests().at(-1)?.body ?? "{}") as { tools: { name: string }[] };
    expect(sent.tools.map((tool) => tool.name)).toEqual(HOSTED_DEFAULT_TOOLS);
  });

  it("returns a valid list as short text, streams a todos event and ends the result with it", async () => {
    const { code, events } = await run([todoWrite("t1", plan), reply(text("Planned."))], ["plan"]);
    expect(code).toBe(0);
    expect(toolResults(events)).toEqual([
      expect.objectContaining({
        is_error: false,
        content: "[x] Read the code\n[>] Write the tests\n[ ] Run them",
      }),
    ]);
    for (const event of events.slice(0, -1)) {
      expect(validEvent(event), JSON.stringify(validEvent.errors)).toBe(true);
    }
    expect(events.filter((event) => event.type === "todos")).toEqual([
      { type: "todos", todos: plan },
    ]);
    const result = events.at(-1);
    expect(validResult(result), JSON.stringify(validResult.errors)).toBe(true);
    expect(result?.todos).toEqual(plan);
  });

  it("is shown in the REPL under its call: done items ticked, the current one highlighted", async () => {
    model.script([todoWrite("t1", plan), reply(text("Planned."))]);
    const sandbox = freshSandbox();
    const terminal = await openRepl({
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
      args: WITH_TODOS,
    });
    const screen = await terminal.enter("plan the work", /Planned\./);
    expect(screen).toContain("todo_write 3 items");
    expect(screen).toMatch(/✔ Read the code/);
    expect(screen).toContain("\x1b[1;36m▶ Writing the tests\x1b[0m");
    expect(screen).toContain("☐ Run them");
    // The list is shown once, not also as the tool's text result.
    expect(screen).not.toContain("[>] Write the tests");
    expect(await terminal.exit()).toBe(0);
    model.script([]);
  });

  it("takes the list as a JSON string too", async () => {
    const { events } = await run(
      [todoWrite("t1", JSON.stringify(plan)), reply(text("Planned."))],
      ["plan"],
    );
    expect(toolResults(events)[0]).toMatchObject({ is_error: false });
    expect(events.at(-1)?.todos).toEqual(plan);
  });

  it.each([
    [
      "two items in progress",
      [
        { content: "a", status: "in_progress" },
        { content: "b", status: "in_progress" },
      ],
      "2 items are in_progress; at most one may be, so mark the others pending or completed.",
    ],
    [
      "21 items",
      Array.from({ length: 21 }, (_, index) => ({ content: `step ${index}`, status: "pending" })),
      "The list has 21 items; keep it to at most 20 by merging small steps.",
    ],
    [
      "an unknown status",
      [{ content: "a", status: "done" }],
      'Item 1 has the status "done"; use one of pending, in_progress, completed, cancelled.',
    ],
  ])("answers a list with %s by an error result naming the problem", async (_, todos, problem) => {
    const { code, events } = await run([todoWrite("t1", todos), reply(text("Oops."))], ["plan"]);
    expect(code).toBe(0);
    expect(toolResults(events)).toEqual([
      expect.objectContaining({ is_error: true, content: problem }),
    ]);
    expect(events.some((event) => event.type === "todos")).toBe(false);
    expect(events.at(-1)?.todos).toBeUndefined();
  });

  /** The tool results that carry the reminder, by the bash turn (1, 2, ...) they answered. */
  function remindedTurns(sandbox: Sandbox): number[] {
    const messages = onlySession(sandbox).entries.flatMap((entry) =>
      entry.type === "message" ? [entry.message as Message] : [],
    );
    return messages.flatMap((message) =>
      typeof message.content !== "string" &&
      message.content.some(
        (b) => b.type === "tool_result" && resultText(b.content).includes(REMINDER),
      )
        ? [Number(message.content.find((b) => b.type === "tool_result")?.tool_use_id.slice(7))]
        : [],
    );
  }

  it("reminds once after 5 turns without an update, then not again for 5 turns", async () => {
    const bash = Array.from({ length: 11 }, (_, index) => bashTurn(index + 1));
    const { code, sandbox } = await run(
      [todoWrite("t1", plan), ...bash, reply(text("Done."))],
      [...YOLO, "work"],
    );
    expect(code).toBe(0);
    expect(remindedTurns(sandbox)).toEqual([5, 10]);
  });

  it("does not remind once every item is completed or cancelled", async () => {
    const done = [
      { content: "Read the code", status: "completed" },
      { content: "Run them", status: "cancelled" },
    ];
    const bash = Array.from({ length: 7 }, (_, index) => bashTurn(index + 1));
    const { sandbox } = await run(
      [todoWrite("t1", done), ...bash, reply(text("Done."))],
      [...YOLO, "work"],
    );
    expect(remindedTurns(sandbox)).toEqual([]);
  });
});

/** Summary requests are answered whenever they come, outside the script. */
const answerSummaries = {
  intercept: ({ lastUserText }: { lastUserText: string }) =>
    lastUserText.includes("[agentloop] The conversation has grown too long")
      ? reply(text("Steps are being run one by one."))
      : undefined,
};

describe("the todo list across a compaction and --continue", () => {
  it("is restated beside the summary, and a continued session's result still has it", async () => {
    const model = await startFakeModel("anthropic", { contextWindow: 8_000 });
    try {
      // The model's own long text fills the window, so the history must be summarised.
      const long = "Let me think about this step carefully before running it. ".repeat(30);
      const turns: FakeTurn[] = [todoWrite("t1", plan)];
      for (let k = 1; k <= 12; k += 1) {
        turns.push(reply(text(long), toolUse(`toolu_b${k}`, "bash", { command: `echo ${k}` })));
      }
      turns.push(reply(text("Done.")));
      model.script(turns, answerSummaries);
      const sandbox = freshSandbox();
      const options = { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace };
      const args = [...WITH_TODOS, ...YOLO, "--context-window", "8000", "--output-format", "json"];
      const first = await runCli([...args, "run every step"], options);
      expect(first.code).toBe(0);
      const summaries = onlySession(sandbox).entries.filter(
        (entry) => entry.type === "compaction" && entry.kind === "summary",
      );
      expect(summaries.length).toBeGreaterThan(0);
      // Summarised away, the todo_write call is no longer sent; the list is, restated.
      const last = model.requests().at(-1)?.body ?? "";
      expect(last).not.toContain('"name":"todo_write","input"');
      expect(last).toContain("Your todo list as it stood when the earlier turns were summarised");
      expect(last).toContain("[>] Write the tests");

      model.script([reply(text("Still on the tests."))], answerSummaries);
      const resumed = await runCli([...args, "--continue", "where are we?"], options);
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout).todos).toEqual(plan);
    } finally {
      await model.close();
    }
  }, 60_000);
});

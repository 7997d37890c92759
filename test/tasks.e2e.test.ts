// The task board (course s10) through the built CLI against the fake Anthropic server: a task
// blocked by another cannot start until its owner completes that one, task_get then shows no
// blocker, --continue finds the same board, and two processes adding 50 tasks each at once to
// one shared board leave 100.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBoard } from "../src/tasks/board.js";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  runForBodies,
  type Sandbox,
  startFakeModel,
  writeUserSettings,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";

type Block = { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean };
type Body = { tools?: { name: string }[]; messages: { role: string; content: string | Block[] }[] };
type Event = { type: string; part?: string; name?: string; line?: string; session_id?: string };

/** The tool_result answering call `id` in the last request a run sent. */
function resultOf(bodies: Body[], id: string): { text: string; isError: boolean } {
  const blocks = (bodies.at(-1)?.messages ?? []).flatMap((message) =>
    typeof message.content === "string" ? [] : message.content,
  );
  const found = blocks.find((block) => block.type === "tool_result" && block.tool_use_id === id);
  if (!found) throw new Error(`no result for ${id}`);
  const content = found.content;
  const text =
    typeof content === "string"
      ? content
      : (content as { text?: string }[]).map((part) => part.text ?? "").join("");
  return { text, isError: found.is_error === true };
}

describe("the task board through the CLI", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function run(sandbox: Sandbox, args: string[], turns: FakeTurn[], env = {}) {
    const ran = await runForBodies<Body>(model, sandbox, turns, args, undefined, env);
    return { ...ran, events: ran.events as Event[] };
  }

  it("offers no board tool by default", async () => {
    const { code, bodies } = await run(freshSandbox(), ["-p", "hi"], [reply(text("Hi."))]);
    expect(code).toBe(0);
    expect(
      bodies[0]?.tools?.map((tool) => tool.name).filter((name) => name.startsWith("task_")),
    ).toEqual([]);
  }, 30_000);

  it("says in one sentence, with exit code 2, that its setting is not true or false", async () => {
    const sandbox = freshSandbox();
    writeUserSettings(sandbox, { tasks: "yes" });
    const ran = await runCli([...model.flags, "-p", "hi"], {
      env: { ...sandbox.env, ...model.env() },
      cwd: sandbox.workspace,
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim()).toMatch(
      /^agentloop: "tasks" in \S+settings\.json must be true or false: whether the task board is on\.$/,
    );
  }, 30_000);

  it("starts a blocked task only once its blocker is completed by its owner, and --continue sees the same board", async () => {
    const sandbox = freshSandbox();
    writeUserSettings(sandbox, { tasks: true });
    const first = await run(
      sandbox,
      ["-p", "Plan the release."],
      [
        reply(
          toolUse("a", "task_create", { subject: "Write the schema", description: "SQL first." }),
        ),
        reply(
          toolUse("b", "task_create", { subject: "Deploy", description: "", blocked_by: ["1"] }),
        ),
        reply(toolUse("early", "task_update", { id: "2", status: "in_progress" })),
        reply(toolUse("doneA", "task_update", { id: "1", status: "completed" })),
        reply(toolUse("startB", "task_update", { id: "2", status: "in_progress" })),
        reply(toolUse("getB", "task_get", { id: "2" })),
        reply(text("Deploying.")),
      ],
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.bodies[0]?.tools?.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["task_create", "task_list", "task_get", "task_update"]),
    );
    expect(resultOf(first.bodies, "early")).toEqual({
      text: "Task 2 cannot start: it waits for task 1 (Write the schema, pending). It can once that task is completed.",
      isError: true,
    });
    expect(resultOf(first.bodies, "doneA")).toEqual({
      text: "Updated #1 [completed] Write the schema (owner: lead). Unblocked: task 2 (Deploy).",
      isError: false,
    });
    expect(resultOf(first.bodies, "startB").isError).toBe(false);
    const got = resultOf(first.bodies, "getB").text;
    expect(got).toContain("Status: in_progress");
    expect(got).toContain("Blocked by: none");
    const lines = first.events.filter((event) => event.part === "tasks").map((event) => event.line);
    expect(lines).toEqual([
      "Board: added #1 [pending] Write the schema",
      "Board: added #2 [pending] Deploy (waits for #1)",
      "Board: #1 [completed] Write the schema (owner: lead); unblocked #2",
      "Board: #2 [in progress] Deploy (owner: lead)",
    ]);

    const next = await run(
      sandbox,
      ["--continue", "-p", "Where are we?"],
      [reply(toolUse("list", "task_list", {})), reply(text("Deploy is under way."))],
    );
    expect(next.code, next.stderr).toBe(0);
    expect(next.events.at(-1)?.session_id).toBe(first.events.at(-1)?.session_id);
    expect(resultOf(next.bodies, "list").text).toBe(
      "#1 [completed] Write the schema (owner: lead)\n#2 [in progress] Deploy (owner: lead)",
    );
  }, 60_000);

  it("loses none of the tasks two processes add to one shared board at the same time", async () => {
    const sandbox = freshSandbox();
    const creates = Array.from({ length: 50 }, (_, index) =>
      toolUse(`c${index}`, "task_create", { subject: `Task ${index}`, description: "" }),
    );
    // Each process's prompt is answered with fifty task_create calls, its results with "Done.".
    model.script([], {
      intercept: ({ lastUserText }) => (lastUserText ? reply(...creates) : reply(text("Done."))),
    });
    const env = { ...sandbox.env, ...model.env(), AGENTLOOP_TASK_LIST_ID: "shared" };
    const args = [...model.flags, "--tools", "bash,task_create", "-p"];
    const both = await Promise.all(
      ["Add your tasks.", "Add mine too."].map((prompt) =>
        runCli([...args, prompt], { env, cwd: sandbox.workspace }),
      ),
    );
    model.script([]);
    for (const ran of both) expect(ran.code, ran.stderr).toBe(0);
    const tasks = openBoard("shared", sandbox.env).peek();
    expect(tasks.map((task) => Number(task.id))).toEqual(
      Array.from({ length: 100 }, (_, index) => index + 1),
    );
    expect(tasks.filter((task) => task.subject === "Task 7")).toHaveLength(2);
  }, 90_000);
});

// Hooks and subagents together, through the built CLI against the fake Anthropic server: a
// child's tool calls pass the user's PreToolUse hooks as the session's do, and SubagentStop
// hooks (matched by the agent's type) may send a child back to work before its answer returns.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolResultBlock } from "../src/core/messages.js";
import {
  type FakeModel,
  freshSandbox,
  runCli,
  type Sandbox,
  startFakeModel,
} from "./support/cli-harness.js";
import { type FakeTurn, reply, text, toolUse } from "./support/fake-anthropic-server.js";

type Event = { type: string; [key: string]: unknown };

function userHooks(sandbox: Sandbox, event: string, matcher: string, script: string) {
  const path = join(sandbox.home, `${event}.sh`);
  writeFileSync(path, script);
  const directory = join(sandbox.home, ".config", "agentloop");
  mkdirSync(directory, { recursive: true });
  const hooks = { [event]: [{ matcher, hooks: [{ type: "command", command: `bash ${path}` }] }] };
  writeFileSync(join(directory, "settings.json"), JSON.stringify({ hooks }));
}

const delegate = (id: string, prompt: string) =>
  reply(toolUse(id, "agent", { description: "tidy the workspace", prompt }));

describe("hooks around subagents", () => {
  let model: FakeModel;
  beforeAll(async () => {
    model = await startFakeModel("anthropic");
  });
  afterAll(() => model.close());

  async function run(sandbox: Sandbox, turns: FakeTurn[]) {
    model.script(turns);
    const before = model.requestCount();
    const result = await runCli(
      ["--output-format", "stream-json", "--permission-mode", "yolo", "-p", "tidy up"],
      { env: { ...sandbox.env, ...model.env() }, cwd: sandbox.workspace },
    );
    model.script([]);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Event);
    const bodies = model
      .requests()
      .slice(before)
      .map((request) => JSON.parse(request.body) as { messages: { content: unknown }[] });
    return { ...result, events, bodies };
  }

  it("refuses a child's rm by the user's PreToolUse hook: the child reads why, the file survives", async () => {
    const sandbox = freshSandbox();
    writeFileSync(join(sandbox.workspace, "keep.txt"), "precious\n");
    userHooks(
      sandbox,
      "PreToolUse",
      "Bash",
      'if grep -q \'"command":"rm \'; then echo "no rm, use trash/" >&2; exit 2; fi\n',
    );
    const { code, events } = await run(sandbox, [
      delegate("toolu_a", "Remove keep.txt."),
      reply(toolUse("toolu_rm", "bash", { command: "rm keep.txt" })),
      reply(text("I could not remove it.")),
      reply(text("The file stays.")),
    ]);
    expect(code).toBe(0);
    const childResults = events.flatMap((event) => {
      const inner = event.event as Event | undefined;
      return event.type === "subagent" && inner?.type === "tool_end"
        ? [inner.result as ToolResultBlock]
        : [];
    });
    expect(childResults).toHaveLength(1);
    expect(childResults[0]?.is_error).toBe(true);
    expect(childResults[0]?.content).toContain("no rm, use trash/");
    expect(readFileSync(join(sandbox.workspace, "keep.txt"), "utf8")).toBe("precious\n");
    const hooks = events.filter((event) => event.type === "hook");
    expect(hooks).toMatchObject([
      { event: "PreToolUse", decision: "block", toolUseId: "toolu_rm" },
    ]);
  });

  it("sends a child back to work once by a SubagentStop hook matched by its type, then returns its answer", async () => {
    const sandbox = freshSandbox();
    const log = join(sandbox.home, "subagent-stop.jsonl");
    userHooks(
      sandbox,
      "SubagentStop",
      "general",
      `input=$(cat)\necho "$input" >> ${log}\nif [ ! -e ${log}.once ]; then touch ${log}.once; echo "run the tests first" >&2; exit 2; fi\n`,
    );
    const { code, events, bodies } = await run(sandbox, [
      delegate("toolu_a", "Fix the bug."),
      reply(text("Fixed.")),
      reply(text("Fixed, and the tests pass.")),
      reply(text("Done.")),
    ]);
    expect(code).toBe(0);
    // The child's second request carries the hook's reason as its last user message.
    const childSecond = bodies[2]?.messages.at(-1)?.content;
    expect(JSON.stringify(childSecond)).toContain(
      "SubagentStop hook feedback: run the tests first",
    );
    const stdin = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(stdin).toHaveLength(2);
    expect(stdin[0]).toMatchObject({
      hook_event_name: "SubagentStop",
      agent_type: "general",
      stop_hook_active: false,
      last_assistant_message: "Fixed.",
    });
    expect(stdin[1]).toMatchObject({ stop_hook_active: true, agent_id: stdin[0]?.agent_id });
    expect(String(stdin[0]?.agent_transcript_path)).toMatch(/agents\/[0-9a-f]{4}\.jsonl$/);
    const parentResult = events.find((event) => event.type === "tool_end")?.result as
      | ToolResultBlock
      | undefined;
    expect(parentResult?.content).toMatch(/^Fixed, and the tests pass\.\n\[agent general /);
  });
});
